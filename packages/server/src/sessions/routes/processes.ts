import { z } from "zod";
import { notFound } from "../../http/errors.js";
import { SafeIdSchema, SessionIdSchema } from "../../http/ids.js";
import { type AnyRouteSpec, errorResponse } from "../../http/route.js";
import { ProcessListResponseSchema } from "../schemas.js";
import { defineSessionRoute, IdParams, type SessionRoutesOptions } from "./session-route.js";

/** A session's command sessions: listing them and ending one. */
export function sessionProcessRoutes(options: SessionRoutesOptions): AnyRouteSpec[] {
  const { manager } = options;

  const processes = defineSessionRoute(options, {
    method: "get",
    path: "/api/sessions/:id/processes",
    actsOnRuntime: manager,
    summary: "The session's command sessions (running and exited); none while the runtime is released",
    tag: "processes",
    params: IdParams,
    responses: { 200: { description: "Processes", schema: ProcessListResponseSchema } },
    handle(c, { session }) {
      const list = manager.runtime(session.id)?.session?.processes.list() ?? [];
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

  const killProcess = defineSessionRoute(options, {
    method: "delete",
    path: "/api/sessions/:id/processes/:processId",
    actsOnRuntime: manager,
    summary: "End a command's whole process group (SIGTERM, then SIGKILL after a grace)",
    tag: "processes",
    params: z.object({ id: SessionIdSchema, processId: SafeIdSchema }),
    responses: { 204: { description: "Ended" }, 404: errorResponse("No such session or process") },
    async handle(c, { session, params }) {
      const running = manager.runtime(session.id)?.session?.processes;
      if (!running || !(await running.kill(params.processId))) return notFound(c, "no such process");
      return c.body(null, 204);
    },
  });

  return [processes, killProcess];
}
