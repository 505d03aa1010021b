import { z } from "zod";
import { relayedCallerOf } from "../../cluster/instance-calls.js";
import type { SessionRow } from "../../db/schema.js";
import type { AuthState } from "../../http/context.js";
import { jsonError } from "../../http/errors.js";
import { type AnyRouteSpec, errorResponse } from "../../http/route.js";
import { sessionChannel } from "../../runtime/channels.js";
import type { SessionManager } from "../../runtime/session-manager.js";
import type { PublishInput } from "../../sse/event-hub.js";
import type { ReplayedEvent } from "../../sse/stream-channel.js";
import { defineSessionRoute, IDLE, IdParams, type SessionRoutesOptions } from "./session-route.js";

/** Longest `after` taken: an event id is `<epoch>-<seq>`, a few dozen characters at most. */
const EVENT_ID_MAX_CHARS = 64;

const EventsQuerySchema = z.object({
  after: z
    .string()
    .min(1)
    .max(EVENT_ID_MAX_CHARS)
    .describe("The id of the last event the client has (its Last-Event-ID)"),
});

const BufferedEventSchema = z.object({
  id: z.string().describe("The event's id: what a client sends back as Last-Event-ID"),
  event: z.string().optional(),
  data: z.string(),
});

const EventsResponseSchema = z.object({
  events: z.array(BufferedEventSchema).describe("The stream's events after `after`, oldest first"),
});

const LiveResponseSchema = z.object({
  events: z
    .array(z.object({ event: z.string().optional(), data: z.string() }))
    .describe("server_event events: task_state, then each waiting approval_request and question_request"),
});

/**
 * What a client catches up with, answered by the instance that runs the session (routed there):
 * the stream's buffered events after an event id, which an instance a client reconnected to
 * fetches for it; and the live state a stream starts with (task state, waiting approvals and
 * questions).
 */
export function sessionCatchUpRoutes(options: SessionRoutesOptions): AnyRouteSpec[] {
  const { manager, hub } = options;

  const events = defineSessionRoute(options, {
    method: "get",
    path: "/api/sessions/:id/events",
    summary:
      "The session stream's buffered events after ?after= (an event id), as the stream would replay them; answered by the instance that runs the session",
    tag: "streams",
    params: IdParams,
    query: EventsQuerySchema,
    actsOnRuntime: manager,
    responses: {
      200: { description: "The events after `after`", schema: EventsResponseSchema },
      410: errorResponse(
        "events_gone: the events after `after` are no longer buffered (or the id was never issued for this session); refetch the session's messages",
      ),
    },
    handle(c, { session, query }) {
      const replayed = hub.replay(sessionChannel(session.id), query.after);
      if (typeof replayed === "string") {
        return jsonError(
          c,
          410,
          "events_gone",
          `the events after ${query.after} cannot be replayed (${replayed})`,
        );
      }
      return c.json({ events: replayed.map(({ id, event, data }) => ({ id, event, data })) }, 200);
    },
  });

  const live = defineSessionRoute(options, {
    method: "get",
    path: "/api/sessions/:id/live",
    summary:
      "The events a stream of the session starts with: its task state, waiting approvals and questions; answered by the instance that runs the session",
    tag: "streams",
    params: IdParams,
    actsOnRuntime: manager,
    responses: {
      200: { description: "The session's live state as stream events", schema: LiveResponseSchema },
    },
    handle(c, { session }) {
      return c.json({ events: liveStateHere(manager, session) }, 200);
    },
  });

  return [events, live];
}

/**
 * The live state as this instance knows it: its runtime's, or without one the stored task state
 * (another instance may run a task; its events come through the relay).
 */
export function liveStateHere(manager: SessionManager, session: SessionRow): PublishInput[] {
  const runtime = manager.runtime(session.id);
  if (runtime) return runtime.snapshotEvents();
  const state = session.state === "running" ? { ...IDLE, state: "running" } : IDLE;
  return [{ event: "server_event", data: JSON.stringify({ type: "task_state", ...state }) }];
}

/**
 * The live state a stream starts with: from the instance that runs the session when another one
 * does and answers, else as this instance knows it.
 */
export async function liveStateFromOwner(
  manager: SessionManager,
  session: SessionRow,
  auth: AuthState,
  base: string,
): Promise<PublishInput[]> {
  const response = await callOwner(
    manager,
    session.id,
    auth,
    new URL(`/api/sessions/${session.id}/live`, base),
  );
  const parsed = LiveResponseSchema.safeParse(response);
  return parsed.success ? parsed.data.events : liveStateHere(manager, session);
}

/**
 * The JSON answer of the owner instance to a GET, or undefined: no other instance owns the
 * session, it did not answer 200 in time, or the database could not say who owns it (the stream
 * then goes on with what this instance knows, never fails for it).
 */
async function callOwner(
  manager: SessionManager,
  sessionId: string,
  auth: AuthState,
  url: URL,
): Promise<unknown> {
  // Without a relay (SQLite) no call can be passed on: not even the owner is looked up.
  if (!manager.forwardCall) return undefined;
  try {
    const owner = await manager.ownerElsewhere(sessionId);
    if (!owner || !manager.forwardCall) return undefined;
    const request = new Request(url, { headers: { accept: "application/json" } });
    const response = await manager.forwardCall(owner, request, relayedCallerOf(auth), undefined);
    if (response?.status !== 200) return undefined;
    return await response.json();
  } catch {
    return undefined;
  }
}

/**
 * The events after `lastEventId` from the instance that runs the session, when another one does
 * and answers; undefined otherwise (the client then resyncs).
 */
export async function fetchGapFromOwner(
  manager: SessionManager,
  sessionId: string,
  auth: AuthState,
  lastEventId: string,
  base: string,
): Promise<ReplayedEvent[] | undefined> {
  const url = new URL(`/api/sessions/${sessionId}/events`, base);
  url.searchParams.set("after", lastEventId);
  const parsed = EventsResponseSchema.safeParse(await callOwner(manager, sessionId, auth, url));
  return parsed.success ? parsed.data.events : undefined;
}
