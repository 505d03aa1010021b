import { type OmniMessage, partialToolCallOutput } from "@penguin/protocol";
import type { ToolExecutionContext, ToolResult } from "../environment/types.js";

// The text a tool call streams as its output, and a call that fails with a reason: shared by the
// subagent and messaging tools (the Environment frames and closes the call).

export function* textDelta(toolCallId: string, text: string): Generator<OmniMessage> {
  if (text.length > 0) yield partialToolCallOutput("delta", toolCallId, text);
}

/** A call that fails with a reason the model reads. */
export async function* failedCall(
  ctx: ToolExecutionContext,
  message: string,
): AsyncGenerator<OmniMessage, ToolResult> {
  yield* textDelta(ctx.toolCallId, message);
  return { stopReason: "failed" };
}
