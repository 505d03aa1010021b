import { ApprovalModeSchema } from "@penguin/protocol/schemas";
import { z } from "zod";
import { SessionSchema, TaskStateSchema } from "./schemas.js";

// The body and answer of POST /api/sessions/:id/plan/approve: carrying out the plan a session
// proposed in plan mode.

/** The modes a plan can be carried out in: any but plan mode, where nothing would run. */
export const ExecutionModeSchema = ApprovalModeSchema.exclude(["plan"], {
  error: "choose allow-all, deny-all, read-only or always-ask: in plan mode the plan would not run",
}).describe("The mode the plan runs in, and the session's mode from then on");

export const ApprovePlanRequestSchema = z.strictObject({ mode: ExecutionModeSchema });

export const PlanApprovedSchema = z.object({
  session: SessionSchema.describe("The session, in the chosen mode"),
  task_state: TaskStateSchema,
});
