import { type Agent, processesLeftRunning, type RetainedProcess, type Session } from "@penguin/core";
import { scratchpadDir } from "@penguin/state";
import { isValidSessionId } from "@penguin/trace";
import { formatTable } from "../render/format.js";
import { checkLine, processRow, shortText } from "../render/recovery-rows.js";
import type { Style } from "../render/style.js";

// What `penguin run --resume` and `penguin chat --resume` tell the user before the task, on
// stderr: the steps a crash left uncertain, with Penguin's check (the model gets its own notice
// of them), and the commands and jobs that were running when the session stopped.

/**
 * The commands and jobs a session's registry still has as running. Read before the session is
 * resumed: the resume records the ones that ended meanwhile as interrupted.
 */
export function jobsLeftRunning(agent: Agent, sessionId: string): RetainedProcess[] {
  if (!isValidSessionId(sessionId)) return [];
  return processesLeftRunning(scratchpadDir(agent.dataRoot, sessionId));
}

/** The report's lines (none when the crash left nothing). */
export async function resumeReport(
  session: Session,
  jobs: readonly RetainedProcess[],
  style: Style,
): Promise<string[]> {
  const listed = await session.uncertainSteps();
  const steps = listed.ok ? listed.steps : [];
  const lines: string[] = [];
  if (steps.length > 0) {
    const count = steps.length === 1 ? "1 step was" : `${steps.length} steps were`;
    lines.push(
      style.yellow(`this session stopped while ${count} under way; each may or may not have had its effect:`),
    );
    for (const { entry, check } of steps) {
      lines.push(`  ${entry.toolCallId} ${entry.name} ${style.dim(shortText(entry.arguments))}`);
      lines.push(`    ${checkLine(check)}`);
    }
    lines.push(
      style.dim(
        "  the model is told and checks them before it goes on; to decide yourself, resolve them with session.resolve() " +
          `(\`penguin sessions show ${session.id}\` lists them)`,
      ),
    );
  }
  if (jobs.length > 0) {
    lines.push(style.yellow("commands and jobs that were running when the session stopped:"));
    const rows = jobs.map((job) => {
      const row = processRow(job, style);
      row[1] = `${row[1]} ${style.dim(job.state === "running" ? "(re-attached)" : "(ended while Penguin was down)")}`;
      return row;
    });
    for (const line of formatTable(rows)) lines.push(`  ${line}`);
    lines.push(style.dim("  the model is told; wait_job and read_job_output work on them"));
  }
  return lines;
}
