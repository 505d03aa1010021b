import { openAiErrorBody } from "../provider-errors.js";
import { jsonFrame, type SseFrame } from "../sse.js";
import { type TurnPlan, totalInputTokens } from "../turn-plan.js";
import { type AnswerContext, bodyWantsStream, type ModelProtocol } from "./protocol.js";

/**
 * OpenAI Responses (`POST /v1/responses`). Output items come in the order reasoning, message,
 * function calls. Thinking is streamed as a reasoning summary; a scripted thinking signature is
 * the reasoning item's `encrypted_content`. The stream has no `[DONE]`: it ends after
 * `response.completed`.
 */

type Item = Record<string, unknown>;

function responseId(plan: TurnPlan): string {
  return `resp_fake_${plan.turnIndex}`;
}

function usageOf(plan: TurnPlan) {
  const input = totalInputTokens(plan.usage);
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: plan.usage.cache_read_tokens },
    output_tokens: plan.usage.output_tokens,
    output_tokens_details: { reasoning_tokens: plan.reasoningTokens },
    total_tokens: input + plan.usage.output_tokens,
  };
}

/** The response object; the request's own settings are echoed where the API echoes them. */
function responseObject(
  plan: TurnPlan,
  context: AnswerContext,
  status: "in_progress" | "completed",
  output: Item[],
): Item {
  const body = context.body;
  const reasoning = (body.reasoning ?? {}) as Record<string, unknown>;
  return {
    id: responseId(plan),
    object: "response",
    created_at: context.createdAt,
    status,
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: context.model,
    output,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    reasoning: { effort: reasoning.effort ?? null, summary: reasoning.summary ?? null },
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    text: body.text ?? { format: { type: "text" } },
    tool_choice: body.tool_choice ?? "auto",
    tools: body.tools ?? [],
    top_p: body.top_p ?? 1,
    truncation: body.truncation ?? "disabled",
    usage: status === "completed" ? usageOf(plan) : null,
    user: body.user ?? null,
    metadata: body.metadata ?? {},
  };
}

function reasoningItem(plan: TurnPlan, text: string | null): Item {
  const item: Item = {
    id: `rs_fake_${plan.turnIndex}`,
    type: "reasoning",
    summary: text === null ? [] : [{ type: "summary_text", text }],
  };
  if (plan.thinkingSignature !== undefined) item.encrypted_content = plan.thinkingSignature;
  return item;
}

function messageItem(plan: TurnPlan, text: string | null): Item {
  return {
    id: `msg_fake_${plan.turnIndex}`,
    type: "message",
    status: text === null ? "in_progress" : "completed",
    role: "assistant",
    content: text === null ? [] : [outputText(text)],
  };
}

function outputText(text: string): Item {
  return { type: "output_text", annotations: [], logprobs: [], text };
}

function functionCallItem(plan: TurnPlan, index: number, done: boolean): Item {
  const call = plan.toolCalls[index]!;
  return {
    id: `fc_fake_${plan.turnIndex}_${index}`,
    type: "function_call",
    status: done ? "completed" : "in_progress",
    arguments: done ? call.arguments : "",
    call_id: call.id,
    name: call.name,
  };
}

/** The finished output items, as `response.completed` and the non-streamed body list them. */
function finalOutput(plan: TurnPlan): Item[] {
  const output: Item[] = [];
  if (plan.thinking) output.push(reasoningItem(plan, plan.thinking.full));
  if (plan.text) output.push(messageItem(plan, plan.text.full));
  plan.toolCalls.forEach((_, index) => {
    output.push(functionCallItem(plan, index, true));
  });
  return output;
}

function streamFrames(plan: TurnPlan, context: AnswerContext): SseFrame[] {
  const frames: SseFrame[] = [];
  let sequence = 0;
  const emit = (type: string, fields: Record<string, unknown>, delta = false) => {
    frames.push(jsonFrame({ type, sequence_number: sequence++, ...fields }, { event: type, delta }));
  };
  emit("response.created", { response: responseObject(plan, context, "in_progress", []) });
  emit("response.in_progress", { response: responseObject(plan, context, "in_progress", []) });
  let outputIndex = 0;

  if (plan.thinking) {
    const item = reasoningItem(plan, null);
    const ids = { item_id: item.id, output_index: outputIndex };
    emit("response.output_item.added", { output_index: outputIndex, item });
    emit("response.reasoning_summary_part.added", {
      ...ids,
      summary_index: 0,
      part: { type: "summary_text", text: "" },
    });
    for (const piece of plan.thinking.chunks) {
      emit("response.reasoning_summary_text.delta", { ...ids, summary_index: 0, delta: piece }, true);
    }
    const full = plan.thinking.full;
    emit("response.reasoning_summary_text.done", { ...ids, summary_index: 0, text: full });
    emit("response.reasoning_summary_part.done", {
      ...ids,
      summary_index: 0,
      part: { type: "summary_text", text: full },
    });
    emit("response.output_item.done", { output_index: outputIndex, item: reasoningItem(plan, full) });
    outputIndex++;
  }

  if (plan.text) {
    const item = messageItem(plan, null);
    const ids = { item_id: item.id, output_index: outputIndex, content_index: 0 };
    emit("response.output_item.added", { output_index: outputIndex, item });
    emit("response.content_part.added", { ...ids, part: outputText("") });
    for (const piece of plan.text.chunks) {
      emit("response.output_text.delta", { ...ids, delta: piece, logprobs: [] }, true);
    }
    const full = plan.text.full;
    emit("response.output_text.done", { ...ids, text: full, logprobs: [] });
    emit("response.content_part.done", { ...ids, part: outputText(full) });
    emit("response.output_item.done", { output_index: outputIndex, item: messageItem(plan, full) });
    outputIndex++;
  }

  plan.toolCalls.forEach((call, index) => {
    const item = functionCallItem(plan, index, false);
    const ids = { item_id: item.id, output_index: outputIndex };
    emit("response.output_item.added", { output_index: outputIndex, item });
    for (const piece of call.chunks) {
      emit("response.function_call_arguments.delta", { ...ids, delta: piece }, true);
    }
    emit("response.function_call_arguments.done", { ...ids, name: call.name, arguments: call.arguments });
    emit("response.output_item.done", {
      output_index: outputIndex,
      item: functionCallItem(plan, index, true),
    });
    outputIndex++;
  });

  emit("response.completed", { response: responseObject(plan, context, "completed", finalOutput(plan)) });
  return frames;
}

function completeBody(plan: TurnPlan, context: AnswerContext): unknown {
  return responseObject(plan, context, "completed", finalOutput(plan));
}

export const openAiResponses: ModelProtocol = {
  name: "openai-responses",
  path: "/v1/responses",
  wantsStream: bodyWantsStream,
  streamFrames,
  completeBody,
  errorBody: openAiErrorBody,
};
