import { type OmniMessage, userText } from "@penguin/protocol";
import { RESOLVE_EXECUTION_ACTIVITY_TOOL_NAME } from "@penguin/state";
import type { RetainedProcess } from "../processes/retained-processes.js";
import { type JournalAccess, uncertainSteps } from "../tools/journal/index.js";

// The one notice a resumed session's model gets about what a crash left: each uncertain call's
// tool, short arguments and what Penguin found when it checked the files, then what to do; and
// the jobs that outlived the crash, in a line or two. Never the journal itself: a few lines,
// whatever the number of calls and jobs.

export const UNCERTAIN_NOTICE_TAG = "uncertain_steps";
/** The tag of a notice with surviving jobs and no uncertain call. */
export const SURVIVING_JOBS_NOTICE_TAG = "surviving_jobs";
/** Calls named one by one; the rest are counted. */
const LISTED_CALLS = 5;
/** Jobs named one by one; the rest are counted. */
const LISTED_JOBS = 4;
/** Characters of a call's arguments shown. */
const ARGUMENT_CHARS = 80;

/** The lines about a session's uncertain calls (none when it has none). */
export async function uncertainLines(access: JournalAccess, resolveToolOffered: boolean): Promise<string[]> {
  const steps = await uncertainSteps(access);
  if (typeof steps === "string" || steps.length === 0) return [];
  const lines = [
    `[${UNCERTAIN_NOTICE_TAG}] The session stopped while ${steps.length === 1 ? "this call was" : "these calls were"} changing things; each may or may not have had its effect:`,
    ...steps
      .slice(0, LISTED_CALLS)
      .map(
        ({ entry, check }) =>
          `- ${entry.name} (${entry.toolCallId}) ${shortArguments(entry.arguments)}: ${check.summary}`,
      ),
  ];
  if (steps.length > LISTED_CALLS) lines.push(`- and ${steps.length - LISTED_CALLS} more`);
  lines.push(
    resolveToolOffered
      ? "Check the workspace, then record a decision on each with resolve_execution_activity (accept: it happened; retry: it did not, and you run it again)."
      : "Check the workspace before you go on: assume neither that they happened nor that they did not.",
  );
  return lines;
}

/**
 * At most two lines about the commands and jobs that were running when the session stopped:
 * re-attached and still running, or ended while Penguin was down. None when there are none.
 */
export function survivingJobLines(processes: readonly RetainedProcess[], tagged: boolean): string[] {
  if (processes.length === 0) return [];
  const named = processes.slice(0, LISTED_JOBS).map((job) => `${job.id} ${jobState(job)}`);
  const more = processes.length > LISTED_JOBS ? `, and ${processes.length - LISTED_JOBS} more` : "";
  const tag = tagged ? `[${SURVIVING_JOBS_NOTICE_TAG}] ` : "";
  return [
    `${tag}Commands and jobs that were running when the session stopped: ${named.join("; ")}${more}.`,
    "wait_job and read_job_output work on them (list_jobs lists them).",
  ];
}

function jobState(job: RetainedProcess): string {
  switch (job.state) {
    case "running":
      return "(re-attached, still running)";
    case "interrupted":
      return "(ended while Penguin was down; exit code unknown)";
    case "reused-pid":
      return "(ended while Penguin was down; its pid now belongs to another program)";
    case "exited":
      return "(ended since)";
  }
}

function shortArguments(text: string): string {
  const flat = text.replace(/\s+/g, " ");
  return flat.length <= ARGUMENT_CHARS ? flat : `${flat.slice(0, ARGUMENT_CHARS - 1)}…`;
}

/** What the recovery notice is built from: the journal, and the jobs the crash left. */
export interface RecoverySource extends JournalAccess {
  /** The commands and jobs the registry had as running when the session was opened, as they are now. */
  leftByCrash(): RetainedProcess[];
}

/**
 * A resumed session's notice, built when its first task starts (not when it is opened): a call
 * the user resolves in between is no longer uncertain, and is left out.
 */
export class RecoveryNotice {
  private queued = false;

  constructor(private readonly source: RecoverySource) {}

  /** Queues the notice for the task's first request, once; nothing when the crash left nothing. */
  async queue(state: { pendingNotes: OmniMessage[] }, tools: readonly { name: string }[]): Promise<void> {
    if (this.queued) return;
    this.queued = true;
    const offered = tools.some((tool) => tool.name === RESOLVE_EXECUTION_ACTIVITY_TOOL_NAME);
    const uncertain = await uncertainLines(this.source, offered);
    const jobs = survivingJobLines(this.source.leftByCrash(), uncertain.length === 0);
    const lines = [...uncertain, ...jobs];
    if (lines.length > 0) state.pendingNotes.push(userText(lines.join("\n"), { sender: "harness" }));
  }
}
