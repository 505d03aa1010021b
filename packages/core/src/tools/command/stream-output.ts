import { type OmniMessage, partialToolCallOutput } from "@penguin/protocol";
import type { CommandSession } from "../../processes/session.js";

/** Why a call stopped following a session's output. */
export type FollowOutcome = "finished" | "window-elapsed" | "aborted";

/**
 * Yields a session's unread output as deltas, in arrival order, until the command has finished
 * (exited and its output collected), the window has passed, or `signal` aborts. Every character
 * yielded is consumed from the session's unread buffer, so no later call returns it again; the
 * tool holds nothing itself (the buffer's cap bounds what is kept while the consumer is slow).
 */
export async function* followOutput(
  session: CommandSession,
  options: { windowMs: number; toolCallId: string; signal?: AbortSignal },
): AsyncGenerator<OmniMessage, FollowOutcome> {
  const deadline = Date.now() + options.windowMs;
  for (;;) {
    const text = session.takeUnread();
    if (text.length > 0) yield partialToolCallOutput("delta", options.toolCallId, text);
    if (session.finished) {
      const rest = session.takeUnread();
      if (rest.length > 0) yield partialToolCallOutput("delta", options.toolCallId, rest);
      return "finished";
    }
    if (options.signal?.aborted) return "aborted";
    const remaining = deadline - Date.now();
    if (remaining <= 0) return "window-elapsed";
    await session.waitForActivity(remaining, options.signal);
  }
}

/** The text a failed call shows the model, as one delta. */
export function messageDelta(toolCallId: string, text: string): OmniMessage {
  return partialToolCallOutput("delta", toolCallId, text);
}

/** The note of a call that returns while its command keeps running. */
export function backgroundNote(id: string): string {
  return `[still running in the background: process_id=${id}; use input_command to poll, write stdin or send Ctrl-C]`;
}
