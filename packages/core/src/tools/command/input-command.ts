import type { OmniMessage } from "@penguin/protocol";
import type { ToolDefinitionConfig } from "@penguin/state";
import type { BuiltinTool, ToolExecutionContext, ToolResult } from "../../environment/types.js";
import type { ProcessManager } from "../../processes/process-manager.js";
import { type CommandSession, exitNote } from "../../processes/session.js";
import {
  CTRL_C,
  CTRL_D,
  clampYieldTime,
  DEFAULT_POLL_YIELD_MS,
  DEFAULT_WRITE_YIELD_MS,
  optionalMilliseconds,
  optionalString,
  requiredString,
} from "./call-arguments.js";
import { followOutput, messageDelta } from "./stream-output.js";

/** input_command has no minimum window: 0 returns what is already there. */
const MIN_INPUT_YIELD_MS = 0;

function unknownProcessMessage(processes: ProcessManager, id: string): string {
  const live = processes.liveIds();
  const known =
    live.length > 0 ? `Running command sessions: ${live.join(", ")}.` : "No command session is running.";
  return `unknown process_id "${id}" (it never existed, or it was evicted). ${known}`;
}

async function* failed(ctx: ToolExecutionContext, message: string): AsyncGenerator<OmniMessage, ToolResult> {
  yield messageDelta(ctx.toolCallId, message);
  return { stopReason: "failed" };
}

function runningNote(session: CommandSession): string {
  return `[still running: process_id=${session.id}]`;
}

/** What the call does to the session before it waits for output. */
type Action = { kind: "poll" } | { kind: "interrupt" } | { kind: "eof" } | { kind: "write"; chars: string };

function actionFor(chars: string | undefined): Action {
  if (chars === undefined || chars === "") return { kind: "poll" };
  if (chars === CTRL_C) return { kind: "interrupt" };
  if (chars === CTRL_D) return { kind: "eof" };
  return { kind: "write", chars };
}

/**
 * `input_command`: drives a command session from exec_command: writes `chars` to its stdin,
 * `"\u0003"` alone sends Ctrl-C, `"\u0004"` alone closes stdin (EOF), empty `chars` polls. Returns the output produced since the last
 * read (never the same output twice), waiting up to `yield_time_ms` and returning early when the
 * command exits.
 *
 * An abort (interrupt or timeout) of an input_command call ends only the call: the command was in
 * the background before this call and stays there, like it does after exec_command's window.
 */
export function createInputCommandTool(definition: ToolDefinitionConfig): BuiltinTool {
  async function* execute(
    args: Record<string, unknown>,
    ctx: ToolExecutionContext,
  ): AsyncGenerator<OmniMessage, ToolResult> {
    const processId = requiredString(args, "process_id");
    if (!processId.ok) return yield* failed(ctx, processId.error);
    const chars = optionalString(args, "chars");
    if (!chars.ok) return yield* failed(ctx, chars.error);
    const requestedYield = optionalMilliseconds(args, "yield_time_ms");
    if (!requestedYield.ok) return yield* failed(ctx, requestedYield.error);
    // `description` is for front ends only; execution ignores it.

    const session = ctx.processes.get(processId.value.trim());
    if (!session) return yield* failed(ctx, unknownProcessMessage(ctx.processes, processId.value.trim()));

    const action = actionFor(chars.value);
    // Input can make a command change files: the task's first one takes git's view of the workspace.
    if (action.kind !== "poll") await ctx.beforeCommand?.();
    session.activeCalls += 1;
    session.touch();
    try {
      if (action.kind !== "poll" && session.status === "exited") {
        // Nothing can be delivered; hand back what is left to read and how it ended.
        const rest = session.takeUnread();
        if (rest.length > 0) yield messageDelta(ctx.toolCallId, rest);
        const what =
          action.kind === "interrupt"
            ? "no Ctrl-C was sent"
            : action.kind === "eof"
              ? "its stdin is closed already"
              : "nothing was written to its stdin";
        const exit = session.exit;
        return {
          stopReason: "failed",
          note: `[${session.id} has already exited; ${what}]${exit ? ` ${exitNote(exit)}` : ""}`,
        };
      }
      let writeError: string | undefined;
      if (action.kind === "interrupt") session.interrupt();
      if (action.kind === "eof") {
        const closed = session.closeStdin();
        if (!closed.ok) writeError = closed.error;
      }
      if (action.kind === "write") {
        const written = await session.write(action.chars);
        if (!written.ok) writeError = written.error;
      }

      const windowMs = clampYieldTime({
        requested: requestedYield.value,
        fallback: action.kind === "poll" ? DEFAULT_POLL_YIELD_MS : DEFAULT_WRITE_YIELD_MS,
        min: MIN_INPUT_YIELD_MS,
        timeoutMs: definition.timeoutMs,
      });
      yield* followOutput(session, {
        windowMs,
        toolCallId: ctx.toolCallId,
        signal: ctx.signal,
      });
      // After an abort or a short window the command may have exited without being drained
      // yet: its exit is still the news; a later poll returns any output that was in flight.
      const status = session.exit ? exitNote(session.exit) : runningNote(session);
      if (writeError !== undefined) {
        return { stopReason: "failed", note: `[nothing was written: ${writeError}] ${status}` };
      }
      return { stopReason: "completed", note: status };
    } finally {
      session.activeCalls -= 1;
      session.touch();
    }
  }

  return { name: definition.name, definition, execute };
}
