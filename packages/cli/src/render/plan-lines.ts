import type { PlanProposedPayload, PlanStep, PlanUpdatedPayload } from "@penguin/protocol";
import { oneLine } from "./agent-event-line.js";
import type { Style } from "./style.js";

// The plan in the live output: the model's checklist (`plan_updated`) as one short line a step,
// and the note that a plan-mode task proposed its plan. Marks are plain ASCII when the output is
// not a terminal with colour (a pipe, a file, NO_COLOR).

/** A step's text is cut to this many characters: the checklist stays one line a step. */
export const PLAN_STEP_MAX_CHARS = 100;

const MARKS: Record<"unicode" | "ascii", Record<PlanStep["status"], string>> = {
  unicode: { pending: "☐", in_progress: "▶", done: "✔" },
  ascii: { pending: "[ ]", in_progress: "[>]", done: "[x]" },
};

export function planUpdatedLines(p: PlanUpdatedPayload, style: Style, unicode: boolean): string[] {
  const marks = MARKS[unicode ? "unicode" : "ascii"];
  const done = p.steps.filter((s) => s.status === "done").length;
  const note = p.note ? `: ${oneLine(p.note)}` : "";
  const head = style.dim(`  plan ${done}/${p.steps.length} done${note}`);
  const steps = p.steps.map((s) => {
    const text = oneLine(s.step, PLAN_STEP_MAX_CHARS);
    if (s.status === "done") return `    ${style.green(marks.done)} ${style.dim(text)}`;
    if (s.status === "in_progress") return `    ${style.cyan(marks.in_progress)} ${style.bold(text)}`;
    return `    ${marks.pending} ${text}`;
  });
  return [head, ...steps];
}

export function planProposedLine(p: PlanProposedPayload, style: Style): string {
  const where = p.path ? ` (saved to ${p.path})` : "";
  return style.cyan(`  plan proposed${where}`);
}
