import { type OmniMessage, warningEvent } from "@penguin/protocol";
import { defaultToolLimits, type ToolDefinitionConfig, type ToolLimits } from "@penguin/state";
import type { BuiltinTool, ToolExecutionContext, ToolResult } from "../../../environment/types.js";
import { exitNote } from "../../../processes/session.js";
import { fail, NOT_STARTED_NOTE } from "../../call-text.js";
import {
  clampYieldTime,
  isUserInterrupt,
  optionalString,
  requiredString,
} from "../../command/call-arguments.js";
import { readyToStart, resolveWorkdir } from "../../command/exec-command.js";
import { followOutput } from "../../command/stream-output.js";
import { optionalWaitMs, stillRunningNote } from "./job-support.js";

type RunLimits = ToolLimits["run_command"];

/** run_command may return at once (`timeout_ms: 0`): a server started in the background. */
const MIN_WAIT_MS = 0;

/**
 * `run_command`: "runs a shell command at once … and records a purpose that says why. timeout
 * bounds how long the call waits, never how long the command may run. A command still going when
 * the wait ends keeps running as a background job, which the job tools handle."
 *
 * The job is a command session of the session's one process manager (the same ids, cap and
 * eviction as exec_command's sessions), started with its purpose. Like exec_command, the output is
 * streamed as it arrives and consumed, so wait_job later returns only what came after; a user
 * interrupt stops a command that is in the foreground, while the call's own timeout only ends the
 * wait.
 */
export function createRunCommandTool(
  definition: ToolDefinitionConfig,
  limits: RunLimits = defaultToolLimits().run_command,
): BuiltinTool {
  async function* execute(
    args: Record<string, unknown>,
    ctx: ToolExecutionContext,
  ): AsyncGenerator<OmniMessage, ToolResult> {
    const purpose = requiredString(args, "purpose");
    if (!purpose.ok) return yield* fail(ctx, purpose.error);
    const command = requiredString(args, "command");
    if (!command.ok) return yield* fail(ctx, command.error);
    const directory = optionalString(args, "directory");
    if (!directory.ok) return yield* fail(ctx, directory.error);
    const timeout = optionalWaitMs(args, "timeout_ms");
    if (!timeout.ok) return yield* fail(ctx, timeout.error);

    const cwd = await resolveWorkdir(ctx.workspaceDir, directory.value);
    if (!cwd.ok) return yield* fail(ctx, cwd.error.replace(/^workdir/, "directory"));
    if (!(await readyToStart(ctx))) return { stopReason: "aborted", note: NOT_STARTED_NOTE };

    const started = ctx.processes.start({
      cmd: command.value,
      cwd: cwd.cwd,
      purpose: purpose.value.trim(),
      origin: "run_command",
      // Journaled before the job starts, so a crash can never hide a process it started.
      beforeStart: (id) => ctx.recordEffect?.({ process_id: id }),
    });
    if (!started.ok) return yield* fail(ctx, started.error);
    // A failed capture of the login environment is said once, in the trace, where it happened.
    for (const line of ctx.processes.takeWarnings()) yield warningEvent("exec", line);
    const job = started.session;
    const windowMs = clampYieldTime({
      requested: timeout.value,
      fallback: limits.defaultTimeoutMs,
      min: MIN_WAIT_MS,
      timeoutMs: definition.timeoutMs,
    });

    job.activeCalls += 1;
    try {
      const outcome = yield* followOutput(job, { windowMs, toolCallId: ctx.toolCallId, signal: ctx.signal });
      if (outcome === "finished") {
        const exit = job.exit;
        if (exit === undefined || exit.kind === "spawn-error") {
          return {
            stopReason: "failed",
            note: exit ? exitNote(exit) : "[the command ended without an exit status]",
          };
        }
        // A non-zero exit is information, not a failure of the tool (as with exec_command).
        return { stopReason: "completed", note: exitNote(exit) };
      }
      if (outcome === "aborted" && ctx.signal && isUserInterrupt(ctx.signal)) {
        void job.terminate();
        return {
          stopReason: "aborted",
          note: `[interrupted: job ${job.id} and its process group were stopped]`,
        };
      }
      return { stopReason: "completed", note: stillRunningNote(job.id) };
    } finally {
      job.activeCalls -= 1;
      job.touch();
      if (ctx.signal?.aborted && isUserInterrupt(ctx.signal) && job.status === "running")
        void job.terminate();
    }
  }

  return { name: definition.name, definition, execute };
}
