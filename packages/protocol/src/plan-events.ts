import { z } from "zod";
import { fieldSchemas } from "./fields.js";
import { onFirstUse } from "./on-first-use.js";

/** Where one step of the plan stands. */
export const PLAN_STEP_STATUSES = ["pending", "in_progress", "done"] as const;

// The plan of a session: the checklist the model keeps with `update_plan` (`plan_updated`), and
// the plan a task in plan mode ends with, for the person to approve (`plan_proposed`).

/** The schemas of this module, built on the first call (on-first-use.ts). */
export const planEventSchemas = onFirstUse(() => {
  const { anyString, nonEmptyString, optionalString } = fieldSchemas();

  const PlanStepStatusSchema = z.enum(PLAN_STEP_STATUSES);

  const PlanStepSchema = z.looseObject({
    step: nonEmptyString,
    status: PlanStepStatusSchema,
  });

  /** The model's checklist, whole, as `update_plan` last set it (each update replaces the last). */
  const PlanUpdatedPayloadSchema = z.looseObject({
    type: z.literal("plan_updated"),
    steps: z.array(PlanStepSchema),
    /** A short word from the model on what changed. */
    note: optionalString,
  });

  /**
   * A task in plan mode ended with its answer: that answer is the plan the person approves (which
   * runs it in the mode they choose) or adjusts. Recorded after the task's `task_end`.
   */
  const PlanProposedPayloadSchema = z.looseObject({
    type: z.literal("plan_proposed"),
    text: anyString,
    /** Where the plan was written (`<scratchpad>/plan.md`), when it was. */
    path: optionalString,
  });
  return { PlanStepStatusSchema, PlanStepSchema, PlanUpdatedPayloadSchema, PlanProposedPayloadSchema };
});
type Schemas = ReturnType<typeof planEventSchemas>;
export type PlanStepStatus = z.infer<Schemas["PlanStepStatusSchema"]>;
export type PlanStep = z.infer<Schemas["PlanStepSchema"]>;
export type PlanUpdatedPayload = z.infer<Schemas["PlanUpdatedPayloadSchema"]>;
export type PlanProposedPayload = z.infer<Schemas["PlanProposedPayloadSchema"]>;
