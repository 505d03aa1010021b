import { z } from "zod";
import { RELAYED_CALL_HEADER, relayedCallerOf } from "../../cluster/instance-calls.js";
import type { SessionRow } from "../../db/schema.js";
import type { AppContext, AuthState } from "../../http/context.js";
import { jsonError, notFound } from "../../http/errors.js";
import { SessionIdSchema } from "../../http/ids.js";
import {
  type AnyRouteSpec,
  defineRoute,
  errorResponse,
  type RouteInput,
  type RouteResponse,
  type RouteSpec,
} from "../../http/route.js";
import {
  type SessionManager,
  SessionOwnedElsewhereError,
  SessionSetupError,
} from "../../runtime/session-manager.js";
import type { StartRefusal, TaskState } from "../../runtime/session-runtime.js";
import type { EventHub } from "../../sse/event-hub.js";
import type { StreamRegistry } from "../../sse/stream-registry.js";
import type { SessionStore } from "../store.js";

export interface SessionRoutesOptions {
  manager: SessionManager;
  store: SessionStore;
  hub: EventHub;
  workspaceRoots: readonly string[];
  /** The open streams by credential: ends them on revocation and caps them per user. */
  streams: StreamRegistry;
}

/** The 404 of every route under `/api/sessions/:id`, unless the route documents a wider one. */
export const SESSION_NOT_FOUND = errorResponse("No such session (or it belongs to another user)");
export const IdParams = z.object({ id: SessionIdSchema });
/** The task state of a session without a loaded runtime: nothing runs, nothing is queued. */
export const IDLE: TaskState = { state: "idle", pendingSteering: 0 };

/** The task state of a session, idle while its runtime is released. */
export function taskStateOf(manager: SessionManager, id: string): TaskState {
  return manager.runtime(id)?.taskState() ?? IDLE;
}

/**
 * A session row as a client should see it: while its runtime is loaded here, the runtime's state,
 * not the stored one. The stored state lags it by a database write, and a client that saw the
 * stream's task_state "idle" must not read "running" next.
 */
export function withLiveState(manager: SessionManager, row: SessionRow): SessionRow {
  const runtime = manager.runtime(row.id);
  if (!runtime) return row;
  return { ...row, state: runtime.taskState().state === "idle" ? "idle" : "running" };
}

/**
 * The 409 of a task or a compaction asked for while one runs ("one task or compaction at a time"):
 * `task_in_progress` while a task runs, `compacting` while a compaction does.
 */
export function refuseWhileBusy(c: AppContext, outcome: StartRefusal): Response {
  if (outcome === "compacting") {
    return jsonError(c, 409, "compacting", "a compaction of the context is running; wait for compaction_end");
  }
  return jsonError(c, 409, "task_in_progress", "a task is running; steer it, abort it or wait for task_end");
}

/** The 404 of a session that does not exist or is not the caller's. */
export const sessionNotFound = (c: AppContext): Response => notFound(c, "no such session");

/**
 * Answers with what `work` answers, unless the session cannot be set up (its workspace, model,
 * agent or config is invalid or gone): that is the 400 `invalid_session`, with the reason.
 */
export async function answerUnlessSetupFails(
  c: AppContext,
  work: () => Promise<Response>,
): Promise<Response> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof SessionSetupError) return jsonError(c, 400, "invalid_session", error.message);
    if (error instanceof SessionOwnedElsewhereError) return ownedElsewhere(c, error.ownerAddress);
    throw error;
  }
}

/**
 * The 409 of a call that needs the session's runtime while another live server instance holds
 * it: the client (or a proxy) sends it to `owner_address` instead.
 */
export function ownedElsewhere(c: AppContext, ownerAddress: string): Response {
  return jsonError(c, 409, "session_owned_elsewhere", new SessionOwnedElsewhereError(ownerAddress).message, {
    owner_address: ownerAddress,
  });
}

/** The validated body as JSON again (the request's own was read already). */
const bodyText = (body: unknown): string | undefined =>
  body === undefined ? undefined : JSON.stringify(body);

const OWNED_ELSEWHERE_DESCRIPTION =
  "session_owned_elsewhere: another server instance runs this session (its URL in owner_address)";

/**
 * The session if the caller may see it: its owner, or an admin. Anyone else gets the same 404
 * as for an id that does not exist, so ids of other users' sessions never leak.
 */
async function visibleSession(
  store: SessionStore,
  auth: AuthState,
  id: string,
): Promise<SessionRow | undefined> {
  const row = await store.find(id);
  if (!row) return undefined;
  return row.user_id === auth.user.id || auth.user.role === "admin" ? row : undefined;
}

/** What a handler under `/api/sessions/:id` gets: the route's input and the session it names. */
export interface SessionRouteInput<P, B, Q = undefined> extends RouteInput<P, B, Q, "user"> {
  session: SessionRow;
}

/** A route under `/api/sessions/:id`, for users; its handler runs only for a visible session. */
export interface SessionRouteSpec<
  P extends z.ZodType,
  B extends z.ZodType | undefined,
  Q extends z.ZodType | undefined = undefined,
> extends Omit<RouteSpec<P, B, Q, "user">, "access" | "handle"> {
  /**
   * Given for a route that acts on the session's runtime (its task, decisions, processes): while
   * another live instance holds the session, the answer is the 409 `session_owned_elsewhere`.
   */
  actsOnRuntime?: SessionManager;
  handle(c: AppContext, input: SessionRouteInput<P, B, Q>): Response | Promise<Response>;
}

/**
 * Defines a route that acts on one session: it looks the session up for the caller first and
 * answers 404 `not_found` when it does not exist or is not theirs, so no handler repeats it.
 * The 404 is documented as `SESSION_NOT_FOUND` unless the route gives a wider description.
 */
export function defineSessionRoute<
  P extends z.ZodType<{ id: string }>,
  B extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
>(routes: Pick<SessionRoutesOptions, "store" | "manager">, spec: SessionRouteSpec<P, B, Q>): AnyRouteSpec {
  const { handle, actsOnRuntime: manager, ...route } = spec;
  const responses: Record<number, RouteResponse> = { 404: SESSION_NOT_FOUND, ...spec.responses };
  if (manager) {
    const conflict = responses[409]?.description;
    responses[409] = errorResponse(
      conflict ? `${conflict}; or ${OWNED_ELSEWHERE_DESCRIPTION}` : OWNED_ELSEWHERE_DESCRIPTION,
    );
  }
  return defineRoute<P, B, Q, "user">({
    ...route,
    access: "user",
    responses,
    async handle(c, input) {
      const session = await visibleSession(routes.store, input.auth, input.params.id);
      if (!session) return sessionNotFound(c);
      const owner = manager ? await manager.ownerElsewhere(session.id) : undefined;
      if (owner !== undefined) {
        // Routed to the owner when the instances share a relay; a call that was routed already
        // is answered here (the owner changed meanwhile), never passed on again.
        const forwarded =
          manager?.forwardCall && c.req.header(RELAYED_CALL_HEADER) === undefined
            ? await manager.forwardCall(owner, c.req.raw, relayedCallerOf(input.auth), bodyText(input.body))
            : undefined;
        return forwarded ?? ownedElsewhere(c, owner.address);
      }
      // Answered here: with traces in the database, from this instance's files brought up to date.
      await routes.manager.traceCurrent(session.id);
      return handle(c, { ...input, session });
    },
  });
}
