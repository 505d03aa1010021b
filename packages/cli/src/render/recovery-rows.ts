import type { RetainedProcess, StepEvidence } from "@penguin/core";
import { formatBytes } from "./format.js";
import type { Style } from "./style.js";

// The pieces of what a crash left, as `penguin sessions show` and the report of a resumed run
// print them: a call's short arguments, Penguin's check of it, and a command or job's row.

/** Characters of a call's arguments, and of a command, shown on its line. */
const ARGUMENTS_SHOWN = 80;

export function shortText(text: string, max = ARGUMENTS_SHOWN): string {
  const flat = text.replace(/\s+/g, " ");
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** Penguin's check on one line, with the decision it points to. */
export function checkLine(check: StepEvidence): string {
  const suggests = check.suggestion ? ` (suggests ${check.suggestion})` : "";
  return `Penguin's check: ${check.summary}${suggests}`;
}

/** id, state, pid, command, output size: one row of the "commands and jobs" table. */
export function processRow(process: RetainedProcess, style: Style): string[] {
  const state =
    process.state === "running"
      ? style.green(process.state)
      : process.state === "exited"
        ? process.state
        : style.yellow(process.state);
  const output =
    process.outputFile === undefined ? "output not kept" : `output ${formatBytes(process.outputBytes)}`;
  return [
    process.id,
    state,
    process.pid !== undefined ? `pid ${process.pid}` : "no pid",
    JSON.stringify(shortText(process.command)),
    style.dim(output),
  ];
}
