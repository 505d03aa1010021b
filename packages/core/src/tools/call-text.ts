import { type OmniMessage, partialToolCallOutput } from "@penguin/protocol";
import type { ToolExecutionContext, ToolResult } from "../environment/types.js";

// The text a tool call streams as its output, and a call that answers or fails with one text:
// shared by every built-in tool (the Environment frames and closes the call).

/** The note of a call that was aborted before its command or child session started. */
export const NOT_STARTED_NOTE = "[not started: the call was aborted]";

export function* textDelta(toolCallId: string, text: string): Generator<OmniMessage> {
  if (text.length > 0) yield partialToolCallOutput("delta", toolCallId, text);
}

/** "They are non-streaming (a single final output)": one delta, then the result. */
export async function* answer(
  ctx: ToolExecutionContext,
  text: string,
  result: ToolResult = {},
): AsyncGenerator<OmniMessage, ToolResult> {
  yield partialToolCallOutput("delta", ctx.toolCallId, text);
  return result;
}

/** "failures come back as explanatory text with stop_reason: failed". */
export function fail(ctx: ToolExecutionContext, text: string): AsyncGenerator<OmniMessage, ToolResult> {
  return answer(ctx, text, { stopReason: "failed" });
}
