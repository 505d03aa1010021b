import { type AnyRouteSpec, errorResponse } from "../../http/route.js";
import { CompactAcceptedSchema } from "../schemas.js";
import {
  answerUnlessSetupFails,
  defineSessionRoute,
  IdParams,
  refuseWhileBusy,
  type SessionRoutesOptions,
} from "./session-route.js";

/** Compacting a session's context on demand (the `manual` trigger). */
export function sessionCompactionRoutes(options: SessionRoutesOptions): AnyRouteSpec[] {
  const { manager } = options;

  const compact = defineSessionRoute(options, {
    method: "post",
    path: "/api/sessions/:id/compact",
    actsOnRuntime: manager,
    summary:
      "Compact the session's context now; follow it on the session's stream (compaction_begin … compaction_end, whose status says whether it worked)",
    tag: "tasks",
    params: IdParams,
    responses: {
      202: { description: "The compaction runs", schema: CompactAcceptedSchema },
      400: errorResponse("The session cannot be reopened (its workspace or config is gone)"),
      409: errorResponse(
        "task_in_progress: a task is running; wait for task_end or abort it. compacting: a compaction is already running",
      ),
    },
    async handle(c, { session }) {
      return answerUnlessSetupFails(c, async () => {
        const started = await manager.compact(session);
        if (typeof started === "string") return refuseWhileBusy(c, started);
        return c.json({ session_id: session.id, task_state: started.began }, 202);
      });
    },
  });

  return [compact];
}
