import type { AnyRouteSpec } from "../../http/route.js";
import { RecoveryResponseSchema, recoveryOf } from "../recovery.js";
import { readTrace } from "../trace-reads.js";
import { defineSessionRoute, IdParams, type SessionRoutesOptions, taskStateOf } from "./session-route.js";

/** What a crash may have left half done in a session: its uncertain steps and the decisions taken. */
export function sessionRecoveryRoutes(options: SessionRoutesOptions): AnyRouteSpec[] {
  const { manager, store } = options;

  const recovery = defineSessionRoute(store, {
    method: "get",
    path: "/api/sessions/:id/recovery",
    summary:
      "The session's uncertain steps (tool calls started with no result recorded, not yet resolved) and the decisions taken on such steps",
    tag: "sessions",
    params: IdParams,
    responses: { 200: { description: "Uncertain and resolved steps", schema: RecoveryResponseSchema } },
    handle(c, { session }) {
      const running = taskStateOf(manager, session.id).state === "running";
      return c.json(recoveryOf(readTrace(manager.location, session.id), running), 200);
    },
  });

  return [recovery];
}
