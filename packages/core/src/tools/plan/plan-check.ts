import type { PlanStep } from "@penguin/protocol";
import { PLAN_STEP_STATUSES } from "@penguin/protocol";
import { MAX_PLAN_NOTE_CHARS, MAX_PLAN_STEP_CHARS, MAX_PLAN_STEPS } from "@penguin/state";

// update_plan's arguments as a plan, or the message that tells the model what to fix. The JSON
// Schema already bounds the shape; a user may have edited it, so every rule is checked here too.

export type PlanArguments = { ok: true; steps: PlanStep[]; note?: string } | { ok: false; error: string };

const isStatus = (value: unknown): value is PlanStep["status"] =>
  (PLAN_STEP_STATUSES as readonly unknown[]).includes(value);

export function checkPlanArguments(args: Record<string, unknown>): PlanArguments {
  const { steps, note } = args;
  if (!Array.isArray(steps)) return { ok: false, error: "steps must be a list of {step, status}." };
  if (steps.length > MAX_PLAN_STEPS)
    return {
      ok: false,
      error: `A plan has at most ${MAX_PLAN_STEPS} steps (got ${steps.length}); merge some.`,
    };
  const plan: PlanStep[] = [];
  for (const [index, entry] of steps.entries()) {
    const where = `steps[${index}]`;
    const { step, status } = (entry ?? {}) as { step?: unknown; status?: unknown };
    if (typeof step !== "string" || step.trim() === "")
      return { ok: false, error: `${where}.step is empty: say what the step does.` };
    if (step.length > MAX_PLAN_STEP_CHARS)
      return {
        ok: false,
        error: `${where}.step is longer than ${MAX_PLAN_STEP_CHARS} characters; shorten it.`,
      };
    if (!isStatus(status))
      return { ok: false, error: `${where}.status must be one of ${PLAN_STEP_STATUSES.join(", ")}.` };
    plan.push({ step: step.trim(), status });
  }
  const inProgress = plan.filter((entry) => entry.status === "in_progress").length;
  if (inProgress > 1)
    return {
      ok: false,
      error: `At most one step may be in_progress (got ${inProgress}); mark the others pending or done.`,
    };
  if (note !== undefined && (typeof note !== "string" || note.length > MAX_PLAN_NOTE_CHARS))
    return { ok: false, error: `note must be a text of at most ${MAX_PLAN_NOTE_CHARS} characters.` };
  const given = typeof note === "string" && note.trim() !== "" ? note.trim() : undefined;
  return given === undefined ? { ok: true, steps: plan } : { ok: true, steps: plan, note: given };
}

/** The tool's whole answer: short, since the model already knows the plan it sent. */
export function planSummary(steps: readonly PlanStep[]): string {
  const done = steps.filter((entry) => entry.status === "done").length;
  return `plan updated: ${done}/${steps.length} done`;
}
