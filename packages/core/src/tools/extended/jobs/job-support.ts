import type { OmniMessage } from "@penguin/protocol";
import type { ToolExecutionContext, ToolResult } from "../../../environment/types.js";
import type { ProcessManager } from "../../../processes/process-manager.js";
import { type CommandSession, exitNote } from "../../../processes/session.js";
import { fail } from "../../call-text.js";

// What the job tools share: finding a job by id, and saying what state it is in.

/** The job a call names, or a failed output that lists the ids that exist. */
export function findJob(
  ctx: ToolExecutionContext,
  args: Record<string, unknown>,
): { ok: true; job: CommandSession } | { ok: false; failure: AsyncGenerator<OmniMessage, ToolResult> } {
  const raw = args.job_id;
  if (typeof raw !== "string" || raw.trim() === "") {
    return { ok: false, failure: fail(ctx, 'missing argument "job_id": a job id such as cmd_1 is required') };
  }
  const id = raw.trim();
  const job = ctx.processes.get(id);
  if (job) return { ok: true, job };
  return { ok: false, failure: fail(ctx, unknownJobMessage(ctx.processes, id)) };
}

function unknownJobMessage(processes: ProcessManager, id: string): string {
  const known = processes.list().map((info) => `${info.id} (${info.status})`);
  const list = known.length > 0 ? `Jobs of this session: ${known.join(", ")}.` : "This session has no jobs.";
  return `unknown job_id "${id}" (it never existed, or it was evicted to make room). ${list}`;
}

/** `running`, or how it ended: `exited (exit code: 0)`, `exited (terminated by signal SIGTERM)`. */
export function stateText(job: CommandSession): string {
  const exit = job.exit;
  if (!exit) return "running";
  return `exited (${exitNote(exit).slice(1, -1)})`;
}

/** The note of a call that returns while the job keeps running. */
export function stillRunningNote(id: string): string {
  return `[still running as job_id=${id}; use wait_job, read_job_output or signal_job]`;
}

/** A duration for people and models: `850 ms`, `12.3 s`, `4 min 05 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.floor((ms % 60_000) / 1_000);
  return `${minutes} min ${String(seconds).padStart(2, "0")} s`;
}

/** A line cut to `max` characters with a note of how much went. */
export function cutLine(line: string, max: number): string {
  if (line.length <= max) return line;
  return `${line.slice(0, max)}… [${line.length - max} more chars]`;
}

/** An optional whole number of milliseconds (>= 0), or a readable error. */
export function optionalWaitMs(
  args: Record<string, unknown>,
  key: string,
): { ok: true; value: number | undefined } | { ok: false; error: string } {
  const value = args[key];
  if (value === undefined || value === null) return { ok: true, value: undefined };
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    return {
      ok: false,
      error: `argument "${key}" must be a number of milliseconds (0 or more), got ${JSON.stringify(value)}`,
    };
  }
  return { ok: true, value: Math.round(value) };
}
