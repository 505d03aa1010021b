import { jsonError } from "../../http/errors.js";
import { type AnyRouteSpec, errorResponse } from "../../http/route.js";
import { publishServerEvent, sessionChannel, userChannel } from "../../runtime/channels.js";
import { ApprovePlanRequestSchema, PlanApprovedSchema } from "../plan-schemas.js";
import {
  answerUnlessSetupFails,
  defineSessionRoute,
  IdParams,
  refuseWhileBusy,
  type SessionRoutesOptions,
} from "./session-route.js";

/**
 * Plan mode's last step: approving the plan a plan-mode task proposed. Adjusting it needs no
 * route of its own: a task sent while the session is in plan mode plans again.
 */
export function sessionPlanRoutes(options: SessionRoutesOptions): AnyRouteSpec[] {
  const { manager, store, hub } = options;

  const approve = defineSessionRoute(options, {
    method: "post",
    path: "/api/sessions/:id/plan/approve",
    actsOnRuntime: manager,
    summary:
      "Approve the plan the session proposed in plan mode: the session switches to the chosen mode and a task carries the plan out; follow it on the session's stream",
    tag: "tasks",
    params: IdParams,
    body: ApprovePlanRequestSchema,
    responses: {
      202: { description: "The plan runs, in the chosen mode", schema: PlanApprovedSchema },
      400: errorResponse(
        "mode is plan (choose the mode to run the plan in), or the session cannot be reopened (its workspace or config is gone)",
      ),
      409: errorResponse(
        "no_plan: the session has not proposed a plan (send a task in plan mode first). task_in_progress: a task is running. compacting: a compaction of the context is running",
      ),
    },
    async handle(c, { session, body }) {
      return answerUnlessSetupFails(c, async () => {
        let updated = session;
        const started = await manager.approvePlan(session, body.mode, async () => {
          const row = await store.update(session.id, { approval_mode: body.mode });
          if (!row) return;
          updated = row;
          // Every viewer and the owner's session list see the new mode, as after a PATCH.
          publishServerEvent(hub, sessionChannel(session.id), "session_updated", { session: row });
          publishServerEvent(hub, userChannel(row.user_id), "session_updated", { session: row });
        });
        if (started === "no_plan") {
          return jsonError(
            c,
            409,
            "no_plan",
            "this session has not proposed a plan: send a task in plan mode first",
          );
        }
        if (typeof started === "string") return refuseWhileBusy(c, started);
        return c.json({ session: updated, task_state: started.began }, 202);
      });
    },
  });

  return [approve];
}
