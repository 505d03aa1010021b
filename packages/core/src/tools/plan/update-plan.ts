import { errorMessage, type OmniMessage, planUpdated } from "@penguin/protocol";
import type { ToolDefinitionConfig } from "@penguin/state";
import type { BuiltinTool, ToolExecutionContext, ToolResult } from "../../environment/types.js";
import { answer, fail } from "../call-text.js";
import { checkPlanArguments, planSummary } from "./plan-check.js";
import { writePlanChecklist } from "./plan-file.js";

/**
 * `update_plan {steps, note?}`: the model's checklist, whole each time. The call yields a
 * `plan_updated` event (traced, streamed to every front end, read back on resume and kept through
 * compaction) and writes `<scratchpad>/plan.json`; it changes nothing outside the session.
 */
export function createUpdatePlanTool(definition: ToolDefinitionConfig): BuiltinTool {
  async function* execute(
    args: Record<string, unknown>,
    ctx: ToolExecutionContext,
  ): AsyncGenerator<OmniMessage, ToolResult> {
    const plan = checkPlanArguments(args);
    if (!plan.ok) return yield* fail(ctx, plan.error);
    yield planUpdated(plan.steps, plan.note);
    try {
      await writePlanChecklist(ctx.scratchpadDir, plan.steps);
    } catch (error) {
      // The event already carries the plan; the file is a copy for the person.
      return yield* answer(ctx, `${planSummary(plan.steps)} (plan.json not written: ${errorMessage(error)})`);
    }
    return yield* answer(ctx, planSummary(plan.steps));
  }
  return { name: definition.name, definition, execute };
}
