import type { OmniMessage } from "@penguin/protocol";
import { defaultToolLimits, type ToolDefinitionConfig, type ToolLimits } from "@penguin/state";
import type { BuiltinTool, ToolExecutionContext, ToolResult } from "../../../environment/types.js";
import { type CommandSession, EXIT_DRAIN_GRACE_MS, exitNote } from "../../../processes/session.js";
import { answer, fail } from "../../call-text.js";
import { optionalStringArgument } from "../../files/file-tool-support.js";
import { findJob } from "./job-support.js";

type SignalLimits = ToolLimits["signal_job"];

const SIGNALS = ["stop", "kill"] as const;
type JobSignal = (typeof SIGNALS)[number];

/**
 * How long to wait for the shell's exit status once its group is gone. The group is polled
 * (SIGTERM, then SIGKILL after the grace); the exit event of the shell follows within a tick, and
 * its output within the drain grace.
 */
const EXIT_REPORT_WAIT_MS = 1_000 + EXIT_DRAIN_GRACE_MS;

/**
 * `signal_job`: "stop sends SIGTERM to the whole process group and escalates to SIGKILL. kill goes
 * straight to SIGKILL." The job is kept, so its output stays readable (read_job_output) and its
 * end is reported by list_jobs and wait_job. A job that has exited already is signalled too: a
 * child it left running in its process group (`server &`) is ended the same way.
 */
export function createSignalJobTool(
  definition: ToolDefinitionConfig,
  limits: SignalLimits = defaultToolLimits().signal_job,
): BuiltinTool {
  async function* execute(
    args: Record<string, unknown>,
    ctx: ToolExecutionContext,
  ): AsyncGenerator<OmniMessage, ToolResult> {
    const found = findJob(ctx, args);
    if (!found.ok) return yield* found.failure;
    const raw = optionalStringArgument(args, "signal");
    if (!raw.ok) return yield* fail(ctx, raw.error);
    const signal = (raw.value ?? "stop") as JobSignal;
    if (!SIGNALS.includes(signal)) {
      return yield* fail(ctx, `argument "signal" must be "stop" or "kill", got ${JSON.stringify(raw.value)}`);
    }

    const job = found.job;
    const exitedBefore = job.exit;
    if (exitedBefore && !job.canSignal) {
      return yield* answer(
        ctx,
        `Job ${job.id} had already ended, and its pid may now belong to another program: nothing was signalled.`,
        { stopReason: "completed", note: exitNote(exitedBefore) },
      );
    }
    job.activeCalls += 1;
    job.touch();
    try {
      if (signal === "kill") await job.forceKill(limits.graceMs);
      else await job.terminate(limits.graceMs);
      await waitForExit(job, EXIT_REPORT_WAIT_MS);
    } finally {
      job.activeCalls -= 1;
      job.touch();
    }

    const ended = job.exit
      ? exitNote(job.exit)
      : "[its exit status has not arrived yet; list_jobs will show it]";
    if (exitedBefore) {
      return yield* answer(
        ctx,
        `Job ${job.id} had already exited; its process group was ${signal === "kill" ? "sent SIGKILL" : "stopped"} in case anything it started was still running.`,
        { stopReason: "completed", note: exitNote(exitedBefore) },
      );
    }
    const how =
      signal === "kill"
        ? `Job ${job.id} was sent SIGKILL with its whole process group.`
        : job.escalated
          ? `Job ${job.id} was sent SIGTERM with its whole process group; it was still alive after ${limits.graceMs} ms, so it was sent SIGKILL.`
          : `Job ${job.id} was sent SIGTERM with its whole process group and ended.`;
    return yield* answer(ctx, how, { stopReason: "completed", note: ended });
  }

  return { name: definition.name, definition, execute };
}

async function waitForExit(job: CommandSession, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (job.exit === undefined && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
