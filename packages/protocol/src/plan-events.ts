import { z } from "zod";
import { anyString, nonEmptyString, optionalString } from "./fields.js";

// The plan of a session: the checklist the model keeps with `update_plan` (`plan_updated`), and
// the plan a task in plan mode ends with, for the person to approve (`plan_proposed`).

/** Where one step of the plan stands. */
export const PlanStepStatusSchema = z.enum(["pending", "in_progress", "done"]);
export type PlanStepStatus = z.infer<typeof PlanStepStatusSchema>;
export const PLAN_STEP_STATUSES = PlanStepStatusSchema.options;

export const PlanStepSchema = z.looseObject({
  step: nonEmptyString,
  status: PlanStepStatusSchema,
});
export type PlanStep = z.infer<typeof PlanStepSchema>;

/** The model's checklist, whole, as `update_plan` last set it (each update replaces the last). */
export const PlanUpdatedPayloadSchema = z.looseObject({
  type: z.literal("plan_updated"),
  steps: z.array(PlanStepSchema),
  /** A short word from the model on what changed. */
  note: optionalString,
});
export type PlanUpdatedPayload = z.infer<typeof PlanUpdatedPayloadSchema>;

/**
 * A task in plan mode ended with its answer: that answer is the plan the person approves (which
 * runs it in the mode they choose) or adjusts. Recorded after the task's `task_end`.
 */
export const PlanProposedPayloadSchema = z.looseObject({
  type: z.literal("plan_proposed"),
  text: anyString,
  /** Where the plan was written (`<scratchpad>/plan.md`), when it was. */
  path: optionalString,
});
export type PlanProposedPayload = z.infer<typeof PlanProposedPayloadSchema>;
