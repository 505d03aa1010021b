import type { CompleteModelPayload, OmniMessage } from "@penguin/protocol";
import { CARRY_OVER_TAGS } from "@penguin/trace";

/**
 * System markers the harness writes into user text, as `[tag]…[/tag]` blocks: they tell the model
 * what happened outside the normal flow of a turn.
 */
// The carry-over tags are the trace's: a resume recognizes the notes by them.
export const [TURN_RETRIED, TURN_ABORTED] = CARRY_OVER_TAGS;
export const USER_STEERING = "user_steering";

export function block(tag: string, body: string): string {
  return `[${tag}]\n${body.trimEnd()}\n[/${tag}]`;
}

/**
 * A transcript of an unfinished turn: what the model wrote and which tools it called with what
 * results, so the model can pick up from there instead of starting over (or re-running tools).
 */
export function flattenTurn(
  messages: readonly OmniMessage<CompleteModelPayload>[],
  cutOffText = "",
  cutOffToolCalls: readonly { name: string; arguments: string }[] = [],
): string {
  const lines: string[] = [];
  for (const { payload } of messages) {
    switch (payload.type) {
      case "text":
        lines.push(`assistant: ${payload.text}`);
        break;
      case "thinking":
        lines.push(`assistant thinking: ${payload.thinking}`);
        break;
      case "tool_call":
        lines.push(`tool call ${payload.name} (${payload.tool_call_id}): ${payload.arguments}`);
        break;
      case "tool_call_output":
        lines.push(
          `tool output (${payload.tool_call_id}, ${payload.stop_reason ?? "completed"}): ${payload.output}${
            payload.images?.length ? ` [${payload.images.length} image(s) not repeated]` : ""
          }`,
        );
        break;
      case "image_url":
      case "inline_data":
        lines.push("[an image, not repeated]");
        break;
    }
  }
  if (cutOffText) lines.push(`assistant (cut off): ${cutOffText}`);
  // A call the stream broke off in was never run: the model sees how far it had written it.
  for (const call of cutOffToolCalls) {
    lines.push(`tool call ${call.name || "(no name yet)"} (cut off, not run): ${call.arguments}`);
  }
  return lines.join("\n");
}

/** "Retry resends original input + [turn_retried] block with the failed attempt's partial output". */
export function turnRetriedText(reason: string, transcript: string): string {
  const head = `The previous attempt at this reply failed (${reason}) and is retried. Tools it called already ran and are not re-run; their results are below. Continue from there.`;
  return block(TURN_RETRIED, transcript ? `${head}\n${transcript}` : head);
}

/** The unfinished turn of an interrupted (or given-up) task, handed to the model on the next run. */
export function turnAbortedText(notice: string, transcript: string): string {
  return block(
    TURN_ABORTED,
    transcript ? `${notice}\nWhat the turn produced before it stopped:\n${transcript}` : notice,
  );
}

/** "delivered at every input assembly as a standalone [user_steering] user text". */
export function steeringText(text: string): string {
  return block(USER_STEERING, text);
}
