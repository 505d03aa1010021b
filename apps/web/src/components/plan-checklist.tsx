import type { PlanStep } from "@penguin/protocol";

const STEP_MARKS: Record<PlanStep["status"], string> = { pending: "☐", in_progress: "▶", done: "✔" };

/**
 * The model's checklist (update_plan): one line a step, its status as a mark and a class. The
 * timeline shows each update where it happened; the plan panel shows the latest one.
 */
export function PlanChecklist({
  steps,
  note,
  testId = "plan-checklist",
}: {
  steps: PlanStep[];
  note?: string;
  testId?: string;
}) {
  const done = steps.filter((s) => s.status === "done").length;
  return (
    <div className="plan-checklist" data-testid={testId}>
      <p className="status-line">
        Plan: {done}/{steps.length} done{note ? ` — ${note}` : ""}
      </p>
      <ul>
        {steps.map((s, i) => (
          // Steps have no ids; a list is replaced whole by the next update.
          // biome-ignore lint/suspicious/noArrayIndexKey: the position is the step's identity here.
          <li key={i} className={`plan-step plan-${s.status}`} data-status={s.status}>
            <span aria-hidden="true">{STEP_MARKS[s.status]}</span> {s.step}
          </li>
        ))}
      </ul>
    </div>
  );
}
