import type { RunInput } from "@penguin/core";
import type { OmniMessage } from "@penguin/protocol";
import { approvalAudit, readSession, TraceError } from "@penguin/trace";
import { z } from "zod";
import { streamCredentialOf } from "../auth/stream-credentials.js";
import type { SessionRow } from "../db/schema.js";
import type { AppContext, AuthState } from "../http/context.js";
import { ErrorResponseSchema, jsonError, notFound } from "../http/errors.js";
import { SafeIdSchema, SessionIdSchema } from "../http/ids.js";
import { type AnyRouteSpec, defineRoute } from "../http/route.js";
import { MAX_STEER_BODY_BYTES, MAX_TASK_BODY_BYTES } from "../limits.js";
import { publishServerEvent, sessionChannel, userChannel } from "../runtime/channels.js";
import { type SessionManager, SessionSetupError } from "../runtime/session-manager.js";
import type { TaskState } from "../runtime/session-runtime.js";
import type { EventHub } from "../sse/event-hub.js";
import { streamChannel } from "../sse/stream-channel.js";
import type { StreamLease, StreamRegistry } from "../sse/stream-registry.js";
import {
  AbortResponseSchema,
  AuditResponseSchema,
  CreateSessionRequestSchema,
  DecisionRequestSchema,
  DecisionResponseSchema,
  ListSessionsQuerySchema,
  MessagesResponseSchema,
  PatchSessionRequestSchema,
  PendingApprovalsResponseSchema,
  ProcessListResponseSchema,
  SessionListResponseSchema,
  SessionResponseSchema,
  SteerRequestSchema,
  SteerResponseSchema,
  TaskAcceptedSchema,
  TaskRequestSchema,
  ToolCallIdSchema,
  TraceResponseSchema,
} from "./schemas.js";
import type { SessionStore } from "./store.js";
import { checkWorkspace } from "./workspace.js";

export interface SessionRoutesOptions {
  manager: SessionManager;
  store: SessionStore;
  hub: EventHub;
  workspaceRoots: readonly string[];
  /** The open streams by credential: ends them on revocation and caps them per user. */
  streams: StreamRegistry;
}

const errorResponse = (description: string) => ({ description, schema: ErrorResponseSchema });
const NOT_FOUND = errorResponse("No such session (or it belongs to another user)");
const IdParams = z.object({ id: SessionIdSchema });
const IDLE: TaskState = { state: "idle", pendingSteering: 0 };

/** Sessions, tasks, steering, abort, approvals, history, trace, processes and the live streams. */
export function sessionRoutes(options: SessionRoutesOptions): AnyRouteSpec[] {
  const { manager, store, hub } = options;

  /**
   * The session if the caller may see it: its owner, or an admin. Anyone else gets the same 404
   * as for an id that does not exist, so ids of other users' sessions never leak.
   */
  async function visible(auth: AuthState | undefined, id: string): Promise<SessionRow | undefined> {
    const row = await store.find(id);
    if (!row || !auth) return undefined;
    return row.user_id === auth.user.id || auth.user.role === "admin" ? row : undefined;
  }

  /** A lease for one more stream of the caller, or the 429 that refuses it. */
  function openLease(c: AppContext, auth: AuthState): StreamLease | Response {
    const lease = options.streams.open(streamCredentialOf(auth));
    if (lease) return lease;
    return jsonError(
      c,
      429,
      "too_many_streams",
      `this user already has ${options.streams.maxPerUser} live streams open (other tabs or clients); close one and retry`,
    );
  }
  const TOO_MANY_STREAMS = errorResponse(
    "too_many_streams: the user already has the most live streams allowed (maxStreamsPerUser) open",
  );

  const taskStateOf = (id: string): TaskState => manager.runtime(id)?.taskState() ?? IDLE;
  const sessionNotFound = (c: AppContext) => notFound(c, "no such session");

  const create = defineRoute({
    method: "post",
    path: "/api/sessions",
    summary: "Create a session in a workspace, with a model and an approval mode",
    tag: "sessions",
    access: "user",
    body: CreateSessionRequestSchema,
    responses: {
      201: { description: "Created; its trace has started", schema: SessionResponseSchema },
      400: errorResponse("Invalid workspace, unknown model or agent, or an invalid config"),
    },
    async handle(c, { body, auth }) {
      const workspace = await checkWorkspace(body.workspace, options.workspaceRoots);
      if (!workspace.ok) return jsonError(c, 400, "invalid_workspace", workspace.message);
      try {
        const session = await manager.create({
          userId: auth!.user.id,
          agentId: body.agent_id ?? "default",
          workspace: workspace.path,
          model: body.model,
          approvalMode: body.approval_mode,
          title: body.title,
        });
        return c.json({ session }, 201);
      } catch (error) {
        if (error instanceof SessionSetupError) return jsonError(c, 400, "invalid_session", error.message);
        throw error;
      }
    },
  });

  const list = defineRoute({
    method: "get",
    path: "/api/sessions",
    summary: "The caller's sessions, newest first (admins: every user's with all=true)",
    tag: "sessions",
    access: "user",
    query: ListSessionsQuerySchema,
    responses: {
      200: { description: "Sessions", schema: SessionListResponseSchema },
      403: errorResponse("all=true by a user who is not an admin"),
    },
    async handle(c, { query, auth }) {
      const all = query.all === "true";
      if (all && auth!.user.role !== "admin") return jsonError(c, 403, "forbidden", "admins only");
      return c.json({ sessions: await store.list(all ? undefined : auth!.user.id) }, 200);
    },
  });

  const get = defineRoute({
    method: "get",
    path: "/api/sessions/:id",
    summary: "One session",
    tag: "sessions",
    access: "user",
    params: IdParams,
    responses: { 200: { description: "The session", schema: SessionResponseSchema }, 404: NOT_FOUND },
    async handle(c, { params, auth }) {
      const row = await visible(auth, params.id);
      return row ? c.json({ session: row }, 200) : sessionNotFound(c);
    },
  });

  const patch = defineRoute({
    method: "patch",
    path: "/api/sessions/:id",
    summary: "Change the approval mode (it applies from the next decision, mid-task too) or the title",
    tag: "sessions",
    access: "user",
    params: IdParams,
    body: PatchSessionRequestSchema,
    responses: { 200: { description: "The updated session", schema: SessionResponseSchema }, 404: NOT_FOUND },
    async handle(c, { params, body, auth }) {
      const row = await visible(auth, params.id);
      if (!row) return sessionNotFound(c);
      const changes: Partial<Pick<SessionRow, "approval_mode" | "title">> = {};
      if (body.approval_mode !== undefined) changes.approval_mode = body.approval_mode;
      if (body.title !== undefined) changes.title = body.title;
      const updated = await store.update(row.id, changes);
      if (!updated) return sessionNotFound(c);
      // Every viewer of the session (another tab, another device) and the owner's session list
      // see the change; the mode itself is re-read by the next decision, not pushed anywhere.
      publishServerEvent(hub, sessionChannel(row.id), "session_updated", { session: updated });
      publishServerEvent(hub, userChannel(updated.user_id), "session_updated", { session: updated });
      return c.json({ session: updated }, 200);
    },
  });

  const remove = defineRoute({
    method: "delete",
    path: "/api/sessions/:id",
    summary: "Delete a session: ends its task and every process, removes its trace, scratchpad and rows",
    tag: "sessions",
    access: "user",
    params: IdParams,
    responses: { 204: { description: "Deleted" }, 404: NOT_FOUND },
    async handle(c, { params, auth }) {
      const row = await visible(auth, params.id);
      if (!row) return sessionNotFound(c);
      await manager.delete(row);
      return c.body(null, 204);
    },
  });

  const startTask = defineRoute({
    method: "post",
    path: "/api/sessions/:id/tasks",
    summary: "Start a task; follow it on the session's stream",
    tag: "tasks",
    access: "user",
    params: IdParams,
    body: TaskRequestSchema,
    maxBodyBytes: MAX_TASK_BODY_BYTES,
    responses: {
      202: { description: "The task runs", schema: TaskAcceptedSchema },
      400: errorResponse("The session cannot be reopened (its workspace or config is gone)"),
      404: NOT_FOUND,
      409: errorResponse("task_in_progress: a task is running; steer it, abort it or wait for task_end"),
    },
    async handle(c, { params, body, auth }) {
      const row = await visible(auth, params.id);
      if (!row) return sessionNotFound(c);
      const input: RunInput = body.images ? { text: body.input, images: body.images } : body.input;
      try {
        const started = await manager.startTask(row, input);
        if (started === "busy") {
          return jsonError(
            c,
            409,
            "task_in_progress",
            "a task is running; steer it, abort it or wait for task_end",
          );
        }
      } catch (error) {
        if (error instanceof SessionSetupError) return jsonError(c, 400, "invalid_session", error.message);
        throw error;
      }
      return c.json({ session_id: row.id, task_state: taskStateOf(row.id) }, 202);
    },
  });

  const steer = defineRoute({
    method: "post",
    path: "/api/sessions/:id/steer",
    summary: "Queue input for the running task (delivered with its next model request)",
    tag: "tasks",
    access: "user",
    params: IdParams,
    body: SteerRequestSchema,
    maxBodyBytes: MAX_STEER_BODY_BYTES,
    responses: {
      202: { description: "Queued", schema: SteerResponseSchema },
      404: NOT_FOUND,
      409: errorResponse("no_task: no task is running"),
    },
    async handle(c, { params, body, auth }) {
      const row = await visible(auth, params.id);
      if (!row) return sessionNotFound(c);
      const runtime = manager.runtime(row.id);
      if (!runtime?.steer(body.input)) return jsonError(c, 409, "no_task", "no task is running");
      return c.json({ task_state: runtime.taskState() }, 202);
    },
  });

  const abort = defineRoute({
    method: "post",
    path: "/api/sessions/:id/abort",
    summary:
      "Abort the running task and every running subagent (background ones too): waiting approvals are denied, the tasks end aborted, every process ends",
    tag: "tasks",
    access: "user",
    params: IdParams,
    responses: {
      200: { description: "The task (if any) has ended", schema: AbortResponseSchema },
      404: NOT_FOUND,
    },
    async handle(c, { params, auth }) {
      const row = await visible(auth, params.id);
      if (!row) return sessionNotFound(c);
      const aborted = (await manager.runtime(row.id)?.abort()) ?? false;
      return c.json({ aborted, task_state: taskStateOf(row.id) }, 200);
    },
  });

  const approvals = defineRoute({
    method: "get",
    path: "/api/sessions/:id/approvals",
    summary: "Tool calls waiting for a human decision, oldest first",
    tag: "approvals",
    access: "user",
    params: IdParams,
    responses: {
      200: { description: "Waiting calls", schema: PendingApprovalsResponseSchema },
      404: NOT_FOUND,
    },
    async handle(c, { params, auth }) {
      const row = await visible(auth, params.id);
      if (!row) return sessionNotFound(c);
      return c.json({ approvals: manager.runtime(row.id)?.approvals.list() ?? [] }, 200);
    },
  });

  const decide = defineRoute({
    method: "post",
    path: "/api/sessions/:id/approvals/:toolCallId",
    summary: "Allow or deny a waiting tool call (recorded in the trace with source human)",
    tag: "approvals",
    access: "user",
    params: z.object({ id: SessionIdSchema, toolCallId: ToolCallIdSchema }),
    body: DecisionRequestSchema,
    responses: {
      200: { description: "Decided", schema: DecisionResponseSchema },
      404: errorResponse("No such session, or no call waits under this id"),
      409: errorResponse("already_decided: the call has been decided"),
    },
    async handle(c, { params, body, auth }) {
      const row = await visible(auth, params.id);
      if (!row) return sessionNotFound(c);
      const result =
        manager.runtime(row.id)?.approvals.decide(params.toolCallId, body.decision) ?? "not_pending";
      if (result === "decided")
        return c.json({ tool_call_id: params.toolCallId, decision: body.decision }, 200);
      const inTrace = approvalAudit(traceRecords(row.id)).some(
        (entry) => entry.toolCallId === params.toolCallId,
      );
      if (result === "already_decided" || inTrace) {
        return jsonError(c, 409, "already_decided", "this tool call has already been decided");
      }
      return notFound(c, "no tool call waits for a decision under this id");
    },
  });

  const messages = defineRoute({
    method: "get",
    path: "/api/sessions/:id/messages",
    summary:
      "History from the trace plus the running task's partial state, to seed a client before going live",
    tag: "sessions",
    access: "user",
    params: IdParams,
    responses: {
      200: { description: "History and live state", schema: MessagesResponseSchema },
      404: NOT_FOUND,
    },
    async handle(c, { params, auth }) {
      const row = await visible(auth, params.id);
      if (!row) return sessionNotFound(c);
      // Read everything in one tick, so the records, the partial state and the event id agree.
      const runtime = manager.runtime(row.id);
      const lastEventId = hub.lastEventId(sessionChannel(row.id));
      const records = traceRecords(row.id).filter(
        (record) =>
          record.type !== "session_meta" &&
          !(record.type === "event_msg" && record.payload.type === "tool_list_ready"),
      );
      return c.json(
        {
          messages: records,
          partial: runtime?.partialSnapshot() ?? [],
          task_state: runtime?.taskState() ?? IDLE,
          approvals: runtime?.approvals.list() ?? [],
          ...(lastEventId !== undefined ? { last_event_id: lastEventId } : {}),
        },
        200,
      );
    },
  });

  const trace = defineRoute({
    method: "get",
    path: "/api/sessions/:id/trace",
    summary: "The session's trace: every record as written, and lines that could not be read",
    tag: "sessions",
    access: "user",
    params: IdParams,
    responses: { 200: { description: "The trace", schema: TraceResponseSchema }, 404: NOT_FOUND },
    async handle(c, { params, auth }) {
      const row = await visible(auth, params.id);
      if (!row) return sessionNotFound(c);
      const contents = readTrace(row.id);
      return c.json({ records: contents.records, diagnostics: contents.diagnostics }, 200);
    },
  });

  const audit = defineRoute({
    method: "get",
    path: "/api/sessions/:id/approvals/audit",
    summary: "Every approval decision of the session, with its call and outcome",
    tag: "approvals",
    access: "user",
    params: IdParams,
    responses: { 200: { description: "The audit", schema: AuditResponseSchema }, 404: NOT_FOUND },
    async handle(c, { params, auth }) {
      const row = await visible(auth, params.id);
      if (!row) return sessionNotFound(c);
      return c.json({ audit: approvalAudit(traceRecords(row.id)) }, 200);
    },
  });

  const processes = defineRoute({
    method: "get",
    path: "/api/sessions/:id/processes",
    summary: "The session's command sessions (running and exited); none while the runtime is released",
    tag: "processes",
    access: "user",
    params: IdParams,
    responses: { 200: { description: "Processes", schema: ProcessListResponseSchema }, 404: NOT_FOUND },
    async handle(c, { params, auth }) {
      const row = await visible(auth, params.id);
      if (!row) return sessionNotFound(c);
      const list = manager.runtime(row.id)?.session?.processes.list() ?? [];
      return c.json(
        {
          processes: list.map((info) => ({
            id: info.id,
            cmd: info.cmd,
            cwd: info.cwd,
            ...(info.pid !== undefined ? { pid: info.pid } : {}),
            status: info.status,
            ...(info.exit !== undefined ? { exit: info.exit } : {}),
            started_at: new Date(info.startedAt).toISOString(),
            last_used_at: new Date(info.lastUsedAt).toISOString(),
          })),
        },
        200,
      );
    },
  });

  const killProcess = defineRoute({
    method: "delete",
    path: "/api/sessions/:id/processes/:processId",
    summary: "End a command's whole process group (SIGTERM, then SIGKILL after a grace)",
    tag: "processes",
    access: "user",
    params: z.object({ id: SessionIdSchema, processId: SafeIdSchema }),
    responses: { 204: { description: "Ended" }, 404: errorResponse("No such session or process") },
    async handle(c, { params, auth }) {
      const row = await visible(auth, params.id);
      if (!row) return sessionNotFound(c);
      const manager_ = manager.runtime(row.id)?.session?.processes;
      if (!manager_ || !(await manager_.kill(params.processId))) return notFound(c, "no such process");
      return c.body(null, 204);
    },
  });

  const stream = defineRoute({
    method: "get",
    path: "/api/sessions/:id/stream",
    summary:
      "Live stream (SSE): unnamed events carry envelopes; server_event: approval_request, task_state, session_updated, resync_required",
    tag: "streams",
    access: "user",
    params: IdParams,
    responses: { 200: { description: "text/event-stream" }, 404: NOT_FOUND, 429: TOO_MANY_STREAMS },
    async handle(c, { params, auth }) {
      const row = await visible(auth, params.id);
      if (!row) return sessionNotFound(c);
      const lease = openLease(c, auth!);
      if (lease instanceof Response) return lease;
      return streamChannel(c, hub, sessionChannel(row.id), {
        lease,
        snapshot: () =>
          manager.runtime(row.id)?.snapshotEvents() ?? [
            { event: "server_event", data: JSON.stringify({ type: "task_state", ...IDLE }) },
          ],
      });
    },
  });

  const events = defineRoute({
    method: "get",
    path: "/api/events",
    summary:
      "The caller's live events (SSE server_event): session_created, session_updated, session_state, session_deleted",
    tag: "streams",
    access: "user",
    responses: { 200: { description: "text/event-stream" }, 429: TOO_MANY_STREAMS },
    handle(c, { auth }) {
      const lease = openLease(c, auth!);
      if (lease instanceof Response) return lease;
      return streamChannel(c, hub, userChannel(auth!.user.id), { lease });
    },
  });

  function readTrace(sessionId: string) {
    try {
      return readSession(manager.location, sessionId);
    } catch (error) {
      // A session whose trace is gone (removed by hand) has no history, but it is still listed.
      if (error instanceof TraceError && error.code === "session_not_found")
        return { records: [], diagnostics: [] };
      throw error;
    }
  }

  function traceRecords(sessionId: string): OmniMessage[] {
    return readTrace(sessionId).records;
  }

  return [
    create,
    list,
    get,
    patch,
    remove,
    startTask,
    steer,
    abort,
    approvals,
    audit,
    decide,
    messages,
    trace,
    processes,
    killProcess,
    stream,
    events,
  ];
}
