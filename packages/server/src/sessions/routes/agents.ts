import { TraceError } from "@penguin/trace";
import type { AnyRouteSpec } from "../../http/route.js";
import { AgentListResponseSchema, sessionAgents } from "../agent-list.js";
import { defineSessionRoute, IdParams, type SessionRoutesOptions } from "./session-route.js";

/** A session's tree of agents: its own agent and the children it launched, to any depth. */
export function sessionAgentRoutes(options: SessionRoutesOptions): AnyRouteSpec[] {
  const { manager } = options;

  const agents = defineSessionRoute(options, {
    method: "get",
    path: "/api/sessions/:id/agents",
    actsOnRuntime: manager,
    summary:
      "The session's agents depth first: run id, launcher, session, named agent, task, status, messages and questions",
    tag: "sessions",
    params: IdParams,
    responses: { 200: { description: "The agents", schema: AgentListResponseSchema } },
    handle(c, { session }) {
      const runtime = manager.runtime(session.id);
      const live = runtime
        ? { session: runtime.session, taskRunning: runtime.taskState().state === "running" }
        : undefined;
      try {
        return c.json({ agents: sessionAgents(manager.location, session.id, live) }, 200);
      } catch (error) {
        // A session whose trace is gone (removed by hand) is listed with no agents.
        if (error instanceof TraceError && error.code === "session_not_found")
          return c.json({ agents: [] }, 200);
        throw error;
      }
    },
  });

  return [agents];
}
