import { errorMessage, type PlanStep } from "@penguin/protocol";

// What is still open when a context is compacted: the session lists it (the engine knows no
// tools), and the compacted context names it after the summary, so the model can pick up the
// commands, children and files it was working with ("the plan or goal file, open jobs and
// children" must survive a compaction).

/** A command session or job still running: exec_command's `process_id`, the job tools' `job_id`. */
export interface OpenCommand {
  id: string;
  command: string;
  /** The tool that started it. */
  startedBy: string;
}

/** A subagent that can still be reached: running a task, or idle and waiting for a follow-up. */
export interface OpenSubagent {
  id: string;
  status: string;
  /** What its last task ended as, when it has run one. */
  lastTask?: string;
}

/** Plain data the session hands the compaction: nothing here is a live object. */
export interface OpenWork {
  commands: OpenCommand[];
  subagents: OpenSubagent[];
  /** The goal file (GOAL.yaml in the session's scratchpad) and its status, when it exists. */
  goalFile?: { path: string; status: string };
  /** A plan file (PLAN.md in the session's scratchpad), when it exists. */
  planFile?: string;
  /** The model's checklist (update_plan), when it keeps one: carried whole into the new context. */
  plan?: PlanStep[];
}

const STEP_MARK: Record<PlanStep["status"], string> = { pending: "[ ]", in_progress: "[>]", done: "[x]" };

/** The checklist as the compacted context shows it. */
export function planText(steps: readonly PlanStep[]): string {
  return `Current plan (update_plan):\n${steps.map((entry) => `${STEP_MARK[entry.status]} ${entry.step}`).join("\n")}`;
}

/**
 * At most this many commands and as many subagents are listed: the list must stay small next to
 * the summary ("a short, bounded list"); the rest are counted, and list_jobs shows them all.
 */
export const MAX_OPEN_ITEMS_LISTED = 8;

/** A listed command line is cut to this many characters: a heredoc must not refill the context. */
export const MAX_OPEN_COMMAND_CHARS = 160;

/** The open-work lines of a compacted context, or undefined when nothing is open. */
export function openWorkText(work: OpenWork): string | undefined {
  const lines: string[] = [];
  if (work.goalFile) lines.push(`- goal file: ${work.goalFile.path} (status: ${work.goalFile.status})`);
  if (work.planFile) lines.push(`- plan file: ${work.planFile}`);
  lines.push(
    ...listed(
      work.commands,
      (command) => `- command ${command.id} (${command.startedBy}), running: ${cut(command.command)}`,
      "running commands",
    ),
  );
  lines.push(
    ...listed(
      work.subagents,
      (child) =>
        `- subagent ${child.id}, ${child.status}${child.lastTask ? `; last task ${child.lastTask}` : ""}`,
      "subagents",
    ),
  );
  const plan = work.plan && work.plan.length > 0 ? planText(work.plan) : undefined;
  if (lines.length === 0) return plan;
  const open = `Still open when the context was compacted:\n${lines.join("\n")}`;
  return plan === undefined ? open : `${open}\n\n${plan}`;
}

function listed<T>(items: readonly T[], line: (item: T) => string, what: string): string[] {
  const shown = items.slice(0, MAX_OPEN_ITEMS_LISTED).map(line);
  const more = items.length - shown.length;
  return more > 0 ? [...shown, `- ... and ${more} more ${what}`] : shown;
}

function cut(command: string): string {
  const oneLine = command.replace(/\s+/g, " ").trim();
  if (oneLine.length <= MAX_OPEN_COMMAND_CHARS) return oneLine;
  return `${oneLine.slice(0, MAX_OPEN_COMMAND_CHARS)}… [${oneLine.length - MAX_OPEN_COMMAND_CHARS} more chars]`;
}

/**
 * The open-work lines from the session's provider. Listing must not cost the compaction: a
 * provider that fails leaves the summary with a line that says so, and the model can look itself.
 */
export async function askOpenWork(
  provider: (() => Promise<OpenWork>) | undefined,
): Promise<string | undefined> {
  if (!provider) return undefined;
  try {
    return openWorkText(await provider());
  } catch (error) {
    return `What was still open could not be listed (${errorMessage(error)}); list_jobs and the subagent tools show it.`;
  }
}
