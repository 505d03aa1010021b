import type { AnyRouteSpec } from "../../http/route.js";
import { sessionChannel } from "../../runtime/channels.js";
import { MessagesResponseSchema, TraceResponseSchema } from "../schemas.js";
import { readTrace, traceRecords } from "../trace-reads.js";
import { defineSessionRoute, IDLE, IdParams, type SessionRoutesOptions } from "./session-route.js";

/** A session's history: the messages that seed a client, and the raw trace. */
export function sessionHistoryRoutes(options: SessionRoutesOptions): AnyRouteSpec[] {
  const { manager, hub } = options;

  const messages = defineSessionRoute(options, {
    method: "get",
    path: "/api/sessions/:id/messages",
    summary:
      "History from the trace plus the running task's partial state, to seed a client before going live",
    tag: "sessions",
    params: IdParams,
    // The live state (partial streams, waiting approvals and questions, the newest event id) is
    // the owner's: asked on another instance, the call is routed there.
    actsOnRuntime: manager,
    responses: { 200: { description: "History and live state", schema: MessagesResponseSchema } },
    handle(c, { session }) {
      // Read everything in one tick, so the records, the partial state and the event id agree.
      const runtime = manager.runtime(session.id);
      const lastEventId = hub.lastEventId(sessionChannel(session.id));
      const all = traceRecords(manager.location, session.id);
      const records = all.filter(
        (record) =>
          record.type !== "session_meta" &&
          !(record.type === "event_msg" && record.payload.type === "tool_list_ready"),
      );
      // The window is fixed for the session's lifetime; the first record says it.
      const first = all[0];
      const contextWindow = first?.type === "session_meta" ? first.payload.model_context_window : undefined;
      return c.json(
        {
          messages: records,
          partial: runtime?.partialSnapshot() ?? [],
          task_state: runtime?.taskState() ?? IDLE,
          approvals: runtime?.approvals.list() ?? [],
          questions: runtime?.questions.list() ?? [],
          ...(lastEventId !== undefined ? { last_event_id: lastEventId } : {}),
          ...(contextWindow !== undefined ? { context_window: contextWindow } : {}),
        },
        200,
      );
    },
  });

  const trace = defineSessionRoute(options, {
    method: "get",
    path: "/api/sessions/:id/trace",
    summary: "The session's trace: every record as written, and lines that could not be read",
    tag: "sessions",
    params: IdParams,
    responses: { 200: { description: "The trace", schema: TraceResponseSchema } },
    handle(c, { session }) {
      const contents = readTrace(manager.location, session.id);
      return c.json({ records: contents.records, diagnostics: contents.diagnostics }, 200);
    },
  });

  return [messages, trace];
}
