import type { ToolDefinitionConfig } from "./definition-parts.js";
import { deepFreeze, objectSchema } from "./definition-parts.js";

// update_plan: "the model keeps a short checklist of steps with statuses (pending, in progress,
// done)". Every byte of the definition is sent with every request, so it says only what the model
// needs. Core's tools/plan/ implements it; the plan lives in the session (trace and scratchpad).

/** "a short checklist": a plan has at most this many steps. */
export const MAX_PLAN_STEPS = 30;
/** A step is one line of a checklist: at most this many characters. */
export const MAX_PLAN_STEP_CHARS = 200;
/** The optional note on what changed: at most this many characters. */
export const MAX_PLAN_NOTE_CHARS = 300;

export const UPDATE_PLAN_DEFINITION: ToolDefinitionConfig = {
  name: "update_plan",
  description:
    "Set your checklist for this task (the whole list each time). At most one step in_progress. Use for work of several steps.",
  parameters: objectSchema(
    {
      steps: {
        type: "array",
        maxItems: MAX_PLAN_STEPS,
        items: objectSchema(
          {
            step: { type: "string", maxLength: MAX_PLAN_STEP_CHARS },
            status: { type: "string", enum: ["pending", "in_progress", "done"] },
          },
          ["step", "status"],
        ),
      },
      note: { type: "string", maxLength: MAX_PLAN_NOTE_CHARS },
    },
    ["steps"],
  ),
  permission: "r",
  timeoutMs: 10_000,
  maxOutputLength: 2_000,
};

/** The plan tool, offered in every preset. */
export const PLAN_TOOL_DEFINITIONS: readonly ToolDefinitionConfig[] = deepFreeze([UPDATE_PLAN_DEFINITION]);
