import { openAiErrorBody } from "../provider-errors.js";
import { jsonFrame, type SseFrame } from "../sse.js";
import { type TurnPlan, totalInputTokens } from "../turn-plan.js";
import { type AnswerContext, bodyWantsStream, type ModelProtocol } from "./protocol.js";

/**
 * OpenAI Chat Completions (`POST /v1/chat/completions`). Thinking goes out as
 * `reasoning_content`, the field vLLM- and DeepSeek-compatible servers use.
 */

function finishReason(plan: TurnPlan): "tool_calls" | "stop" {
  return plan.toolCalls.length > 0 ? "tool_calls" : "stop";
}

function usageOf(plan: TurnPlan) {
  const prompt = totalInputTokens(plan.usage);
  return {
    prompt_tokens: prompt,
    completion_tokens: plan.usage.output_tokens,
    total_tokens: prompt + plan.usage.output_tokens,
    prompt_tokens_details: { cached_tokens: plan.usage.cache_read_tokens },
    completion_tokens_details: { reasoning_tokens: plan.reasoningTokens },
  };
}

function completionId(plan: TurnPlan): string {
  return `chatcmpl-fake-${plan.turnIndex}`;
}

function includeUsage(body: Record<string, unknown>): boolean {
  const options = body.stream_options;
  return (
    typeof options === "object" &&
    options !== null &&
    (options as Record<string, unknown>).include_usage === true
  );
}

function streamFrames(plan: TurnPlan, context: AnswerContext): SseFrame[] {
  const withUsage = includeUsage(context.body);
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    id: completionId(plan),
    object: "chat.completion.chunk",
    created: context.createdAt,
    model: context.model,
    system_fingerprint: null,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    // With include_usage the API sends `usage: null` on every chunk but the last.
    ...(withUsage ? { usage: null } : {}),
  });
  const frames: SseFrame[] = [jsonFrame(chunk({ role: "assistant", content: "" }))];
  for (const piece of plan.thinking?.chunks ?? []) {
    frames.push(jsonFrame(chunk({ reasoning_content: piece }), { delta: true }));
  }
  for (const piece of plan.text?.chunks ?? []) {
    frames.push(jsonFrame(chunk({ content: piece }), { delta: true }));
  }
  plan.toolCalls.forEach((call, index) => {
    const opening = { index, id: call.id, type: "function", function: { name: call.name, arguments: "" } };
    frames.push(jsonFrame(chunk({ tool_calls: [opening] })));
    for (const piece of call.chunks) {
      frames.push(
        jsonFrame(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }), { delta: true }),
      );
    }
  });
  frames.push(jsonFrame(chunk({}, finishReason(plan))));
  if (withUsage) {
    frames.push(
      jsonFrame({
        id: completionId(plan),
        object: "chat.completion.chunk",
        created: context.createdAt,
        model: context.model,
        system_fingerprint: null,
        choices: [],
        usage: usageOf(plan),
      }),
    );
  }
  frames.push({ data: "[DONE]" });
  return frames;
}

function completeBody(plan: TurnPlan, context: AnswerContext): unknown {
  const message: Record<string, unknown> = {
    role: "assistant",
    content: plan.text?.full ?? null,
    refusal: null,
  };
  if (plan.thinking) message.reasoning_content = plan.thinking.full;
  if (plan.toolCalls.length > 0) {
    message.tool_calls = plan.toolCalls.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  return {
    id: completionId(plan),
    object: "chat.completion",
    created: context.createdAt,
    model: context.model,
    system_fingerprint: null,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(plan) }],
    usage: usageOf(plan),
  };
}

export const openAiChat: ModelProtocol = {
  name: "openai-chat",
  path: "/v1/chat/completions",
  wantsStream: bodyWantsStream,
  streamFrames,
  completeBody,
  errorBody: openAiErrorBody,
};
