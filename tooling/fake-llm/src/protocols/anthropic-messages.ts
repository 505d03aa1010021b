import { anthropicErrorBody } from "../provider-errors.js";
import { jsonFrame, type SseFrame } from "../sse.js";
import type { TurnPlan } from "../turn-plan.js";
import { type AnswerContext, bodyWantsStream, type ModelProtocol } from "./protocol.js";

/**
 * Anthropic Messages (`POST /v1/messages`). Content blocks come in the order thinking, text,
 * tool_use. Every event carries an `event:` line equal to its `type`, and one `ping` follows
 * `message_start` as on the real API.
 */

function messageId(plan: TurnPlan): string {
  return `msg_fake_${plan.turnIndex}`;
}

/**
 * The real API signs every thinking block. A script that gives no signature gets a stable
 * placeholder, so a harness that requires one still sees one.
 */
function signatureOf(plan: TurnPlan): string {
  return (
    plan.thinkingSignature ??
    Buffer.from(`fake-llm thinking signature, turn ${plan.turnIndex}`).toString("base64")
  );
}

function stopReason(plan: TurnPlan): "tool_use" | "end_turn" {
  return plan.toolCalls.length > 0 ? "tool_use" : "end_turn";
}

function usageOf(plan: TurnPlan, outputTokens: number) {
  return {
    input_tokens: plan.usage.input_tokens,
    cache_creation_input_tokens: plan.usage.cache_write_tokens,
    cache_read_input_tokens: plan.usage.cache_read_tokens,
    output_tokens: outputTokens,
  };
}

/**
 * `input` of a tool_use block. The API always sends an object; a scripted arguments string that
 * is not a JSON object is passed through as it is, so malformed tool input can be scripted.
 */
function toolInput(argumentsText: string): unknown {
  try {
    const parsed: unknown = JSON.parse(argumentsText);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? parsed : argumentsText;
  } catch {
    return argumentsText;
  }
}

function streamFrames(plan: TurnPlan, context: AnswerContext): SseFrame[] {
  const frames: SseFrame[] = [];
  const emit = (fields: Record<string, unknown> & { type: string }, delta = false) => {
    frames.push(jsonFrame(fields, { event: fields.type, delta }));
  };
  emit({
    type: "message_start",
    message: {
      id: messageId(plan),
      type: "message",
      role: "assistant",
      model: context.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      // The API reports one output token at the start and the total in message_delta.
      usage: usageOf(plan, 1),
    },
  });
  emit({ type: "ping" });
  let index = 0;

  if (plan.thinking) {
    emit({
      type: "content_block_start",
      index,
      content_block: { type: "thinking", thinking: "", signature: "" },
    });
    for (const piece of plan.thinking.chunks) {
      emit({ type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: piece } }, true);
    }
    emit({
      type: "content_block_delta",
      index,
      delta: { type: "signature_delta", signature: signatureOf(plan) },
    });
    emit({ type: "content_block_stop", index });
    index++;
  }

  if (plan.text) {
    emit({ type: "content_block_start", index, content_block: { type: "text", text: "" } });
    for (const piece of plan.text.chunks) {
      emit({ type: "content_block_delta", index, delta: { type: "text_delta", text: piece } }, true);
    }
    emit({ type: "content_block_stop", index });
    index++;
  }

  for (const call of plan.toolCalls) {
    emit({
      type: "content_block_start",
      index,
      content_block: { type: "tool_use", id: call.id, name: call.name, input: {} },
    });
    for (const piece of call.chunks) {
      emit(
        { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: piece } },
        true,
      );
    }
    emit({ type: "content_block_stop", index });
    index++;
  }

  emit({
    type: "message_delta",
    delta: { stop_reason: stopReason(plan), stop_sequence: null },
    usage: { output_tokens: plan.usage.output_tokens },
  });
  emit({ type: "message_stop" });
  return frames;
}

function completeBody(plan: TurnPlan, context: AnswerContext): unknown {
  const content: Record<string, unknown>[] = [];
  if (plan.thinking)
    content.push({ type: "thinking", thinking: plan.thinking.full, signature: signatureOf(plan) });
  if (plan.text) content.push({ type: "text", text: plan.text.full });
  for (const call of plan.toolCalls) {
    content.push({ type: "tool_use", id: call.id, name: call.name, input: toolInput(call.arguments) });
  }
  return {
    id: messageId(plan),
    type: "message",
    role: "assistant",
    model: context.model,
    content,
    stop_reason: stopReason(plan),
    stop_sequence: null,
    usage: usageOf(plan, plan.usage.output_tokens),
  };
}

export const anthropicMessages: ModelProtocol = {
  name: "anthropic-messages",
  path: "/v1/messages",
  wantsStream: bodyWantsStream,
  streamFrames,
  completeBody,
  errorBody: anthropicErrorBody,
};
