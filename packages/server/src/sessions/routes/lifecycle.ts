import { sessionHolder } from "@penguin/core";
import { scratchpadDir } from "@penguin/state";
import type { SessionRow } from "../../db/schema.js";
import { jsonError } from "../../http/errors.js";
import { ALL_USERS_FORBIDDEN, listScope } from "../../http/list-scope.js";
import { type AnyRouteSpec, defineRoute, errorResponse } from "../../http/route.js";
import { publishServerEvent, sessionChannel, userChannel } from "../../runtime/channels.js";
import {
  CreateSessionRequestSchema,
  ListSessionsQuerySchema,
  PatchSessionRequestSchema,
  SessionListResponseSchema,
  SessionResponseSchema,
} from "../schemas.js";
import { checkWorkspace } from "../workspace.js";
import {
  answerUnlessSetupFails,
  defineSessionRoute,
  IdParams,
  type SessionRoutesOptions,
  sessionNotFound,
  taskStateOf,
  withLiveState,
} from "./session-route.js";

/** Creating, listing, reading, changing and deleting sessions. */
export function sessionLifecycleRoutes(options: SessionRoutesOptions): AnyRouteSpec[] {
  const { manager, store, hub } = options;

  const create = defineRoute({
    method: "post",
    path: "/api/sessions",
    summary: "Create a session in a workspace, with a model and an approval mode",
    tag: "sessions",
    access: "user",
    body: CreateSessionRequestSchema,
    responses: {
      201: { description: "Created; its trace has started", schema: SessionResponseSchema },
      400: errorResponse(
        "Invalid workspace, unknown model, agent or execution profile, or an invalid config",
      ),
    },
    async handle(c, { body, auth }) {
      const workspace = await checkWorkspace(body.workspace, options.workspaceRoots);
      if (!workspace.ok) return jsonError(c, 400, "invalid_workspace", workspace.message);
      return answerUnlessSetupFails(c, async () => {
        const session = await manager.create({
          userId: auth.user.id,
          agentId: body.agent_id ?? "default",
          workspace: workspace.path,
          model: body.model,
          approvalMode: body.approval_mode,
          title: body.title,
          ...(body.execution_profile !== undefined ? { executionProfile: body.execution_profile } : {}),
        });
        return c.json({ session }, 201);
      });
    },
  });

  const list = defineRoute({
    method: "get",
    path: "/api/sessions",
    summary:
      "The caller's sessions, last active first, each with its cost and tokens so far (admins: every user's with all=true)",
    tag: "sessions",
    access: "user",
    query: ListSessionsQuerySchema,
    responses: {
      200: { description: "Sessions", schema: SessionListResponseSchema },
      403: ALL_USERS_FORBIDDEN,
    },
    async handle(c, { query, auth }) {
      const scope = listScope(c, query.all, auth);
      if (scope instanceof Response) return scope;
      const [rows, usage] = await Promise.all([store.list(scope.owner), store.usage(scope.owner)]);
      const usageById = new Map(usage.map((totals) => [totals.session_id, totals]));
      const sessions = rows.map((row) => {
        const totals = usageById.get(row.id);
        return {
          ...withLiveState(manager, row),
          cost_usd: totals?.cost_usd ?? null,
          total_tokens: totals?.total_tokens ?? 0,
        };
      });
      return c.json({ sessions }, 200);
    },
  });

  const get = defineSessionRoute(options, {
    method: "get",
    path: "/api/sessions/:id",
    summary: "One session",
    tag: "sessions",
    params: IdParams,
    responses: { 200: { description: "The session", schema: SessionResponseSchema } },
    handle: (c, { session }) => c.json({ session: withLiveState(manager, session) }, 200),
  });

  const patch = defineSessionRoute(options, {
    method: "patch",
    path: "/api/sessions/:id",
    summary: "Change the approval mode (it applies from the next decision, mid-task too) or the title",
    tag: "sessions",
    params: IdParams,
    body: PatchSessionRequestSchema,
    responses: { 200: { description: "The updated session", schema: SessionResponseSchema } },
    async handle(c, { session, body }) {
      const changes: Partial<Pick<SessionRow, "approval_mode" | "title">> = {};
      if (body.approval_mode !== undefined) changes.approval_mode = body.approval_mode;
      if (body.title !== undefined) changes.title = body.title;
      const updated = await store.update(session.id, changes);
      if (!updated) return sessionNotFound(c);
      // Every viewer of the session (another tab, another device) and the owner's session list
      // see the change; the mode itself is re-read by the next decision, not pushed anywhere.
      publishServerEvent(hub, sessionChannel(session.id), "session_updated", { session: updated });
      publishServerEvent(hub, userChannel(updated.user_id), "session_updated", { session: updated });
      return c.json({ session: updated }, 200);
    },
  });

  const remove = defineSessionRoute(options, {
    method: "delete",
    path: "/api/sessions/:id",
    actsOnRuntime: manager,
    summary:
      "Delete a session: ends every process, removes its trace, scratchpad and rows (refused while a task runs)",
    tag: "sessions",
    params: IdParams,
    responses: {
      204: { description: "Deleted" },
      409: errorResponse(
        "task_in_progress: a task, a compaction or a revert runs (abort it first). session_held: another process (a penguin chat on the server's machine) has the session open",
      ),
    },
    async handle(c, { session }) {
      if (manager.runtime(session.id)?.busy || taskStateOf(manager, session.id).state !== "idle") {
        return jsonError(c, 409, "task_in_progress", "the session is running a task; abort it first");
      }
      const holder = sessionHolder(scratchpadDir(manager.dataRoot, session.id));
      if (holder) {
        return jsonError(
          c,
          409,
          "session_held",
          `the session is open in another process (pid ${holder.pid}); end it there first`,
        );
      }
      return answerUnlessSetupFails(c, async () => {
        await manager.delete(session);
        return c.body(null, 204);
      });
    },
  });

  return [create, list, get, patch, remove];
}
