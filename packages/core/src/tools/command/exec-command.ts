import { stat } from "node:fs/promises";
import path from "node:path";
import { type OmniMessage, warningEvent } from "@penguin/protocol";
import type { ToolDefinitionConfig } from "@penguin/state";
import type { BuiltinTool, ToolExecutionContext, ToolResult } from "../../environment/types.js";
import { exitNote } from "../../processes/session.js";
import { NOT_STARTED_NOTE } from "../call-text.js";
import {
  clampYieldTime,
  DEFAULT_EXEC_YIELD_MS,
  isUserInterrupt,
  MIN_EXEC_YIELD_MS,
  optionalMilliseconds,
  optionalString,
  requiredString,
} from "./call-arguments.js";
import { backgroundNote, followOutput, messageDelta } from "./stream-output.js";

/**
 * Stop reason of a command that ran to its end: `completed`, whatever the exit code. The exit
 * code is information for the model ("full output + exit code", carried by the note); a non-zero
 * exit is what `grep` without a match or a failing test run report, and the model reads it from
 * `[exit code: N]`. `failed` is kept for calls where the tool itself could not do its job
 * (bad arguments, a missing workdir, a shell that does not start).
 */
const FINISHED_STOP_REASON = "completed" as const;

export async function resolveWorkdir(
  workspaceDir: string,
  workdir: string | undefined,
): Promise<{ ok: true; cwd: string } | { ok: false; error: string }> {
  const cwd =
    workdir === undefined || workdir.trim() === "" ? workspaceDir : path.resolve(workspaceDir, workdir);
  try {
    const info = await stat(cwd);
    if (!info.isDirectory()) return { ok: false, error: `workdir is not a directory: ${cwd}` };
    return { ok: true, cwd };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { ok: false, error: `workdir does not exist: ${cwd}` };
    return { ok: false, error: `workdir is not usable: ${cwd} (${code ?? (error as Error).message})` };
  }
}

/**
 * What a command tool waits for before it starts a command, together: git's view of the
 * workspace before the task's first command (so its end lists what commands changed), and a
 * capture of the login environment under way (so the command sources it instead of the profile).
 * False when the call was aborted meanwhile: the command must not start.
 */
export async function readyToStart(ctx: ToolExecutionContext): Promise<boolean> {
  if (ctx.signal?.aborted) return false;
  await Promise.all([ctx.beforeCommand?.(), ctx.processes.loginEnvironmentReady(ctx.signal)]);
  return !ctx.signal?.aborted;
}

async function* failed(ctx: ToolExecutionContext, message: string): AsyncGenerator<OmniMessage, ToolResult> {
  yield messageDelta(ctx.toolCallId, message);
  return { stopReason: "failed" };
}

/**
 * `exec_command`: runs `bash -lc <cmd>` in the workspace (or `workdir`), streams its output, waits
 * in the foreground up to `yield_time_ms`, then leaves it running in the background and returns
 * the output so far plus a process_id for input_command.
 */
export function createExecCommandTool(definition: ToolDefinitionConfig): BuiltinTool {
  async function* execute(
    args: Record<string, unknown>,
    ctx: ToolExecutionContext,
  ): AsyncGenerator<OmniMessage, ToolResult> {
    const cmd = requiredString(args, "cmd");
    if (!cmd.ok) return yield* failed(ctx, cmd.error);
    const workdir = optionalString(args, "workdir");
    if (!workdir.ok) return yield* failed(ctx, workdir.error);
    const requestedYield = optionalMilliseconds(args, "yield_time_ms");
    if (!requestedYield.ok) return yield* failed(ctx, requestedYield.error);
    // `description` is for front ends (and list_jobs); execution ignores it.
    const description = typeof args.description === "string" ? args.description : undefined;

    const cwd = await resolveWorkdir(ctx.workspaceDir, workdir.value);
    if (!cwd.ok) return yield* failed(ctx, cwd.error);
    if (!(await readyToStart(ctx))) return { stopReason: "aborted", note: NOT_STARTED_NOTE };

    const started = ctx.processes.start({
      cmd: cmd.value,
      cwd: cwd.cwd,
      purpose: description,
      // Journaled before the command starts, so a crash can never hide a process it started.
      beforeStart: (id) => ctx.recordEffect?.({ process_id: id }),
    });
    if (!started.ok) return yield* failed(ctx, started.error);
    // A failed capture of the login environment is said once, in the trace, where it happened.
    for (const line of ctx.processes.takeWarnings()) yield warningEvent("exec", line);
    const session = started.session;
    const windowMs = clampYieldTime({
      requested: requestedYield.value,
      fallback: DEFAULT_EXEC_YIELD_MS,
      min: MIN_EXEC_YIELD_MS,
      timeoutMs: definition.timeoutMs,
    });

    session.activeCalls += 1;
    try {
      const outcome = yield* followOutput(session, {
        windowMs,
        toolCallId: ctx.toolCallId,
        signal: ctx.signal,
      });
      if (outcome === "finished") {
        const exit = session.exit;
        if (exit === undefined || exit.kind === "spawn-error") {
          return {
            stopReason: "failed",
            note: exit ? exitNote(exit) : "[the command ended without an exit status]",
          };
        }
        return { stopReason: FINISHED_STOP_REASON, note: exitNote(exit) };
      }
      if (outcome === "aborted" && ctx.signal && isUserInterrupt(ctx.signal)) {
        // "Interrupts (AbortSignal) end a turn cleanly": the user asked to stop, so the command
        // in the foreground stops with its whole process group (SIGTERM, SIGKILL after the
        // grace). Not awaited: the interrupt returns at once, and disposal awaits the rest.
        void session.terminate();
        return {
          stopReason: "aborted",
          note: `[interrupted: ${session.id} and its process group were stopped]`,
        };
      }
      // Window elapsed, or the call timed out. "A tool-call timeout ends the call, not the
      // command": like a finished window, the command moves to the background and keeps running;
      // the output so far was streamed and the note carries its process_id.
      return { note: backgroundNote(session.id) };
    } finally {
      session.activeCalls -= 1;
      session.touch();
      // The Environment may stop pulling this generator (return()) instead of waiting for it;
      // a user interrupt must still stop a command that is in the foreground.
      if (ctx.signal?.aborted && isUserInterrupt(ctx.signal) && session.status === "running") {
        void session.terminate();
      }
    }
  }

  return { name: definition.name, definition, execute };
}
