import { emptyTokenCounts, type OmniMessage, type TokenCounts } from "@penguin/protocol";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { adapterInfo, type ProviderAdapterOptions } from "./adapter-setup.js";
import {
  type ChatRequestOptions,
  COMPATIBLE_REASONING_EFFORT,
  chatRequestBody,
  type MaxTokensField,
  OPENAI_CHAT_WIRE,
  type ReasoningEffortMap,
} from "./openai-chat-request.js";
import { outcome, withUsage } from "./outcomes.js";
import { lazyOpenAIClient } from "./sdk-client.js";
import { beginProviderStream, endProviderStream, type StreamRead } from "./stream-ending.js";
import { createToolCallIdRegistry } from "./tool-call-ids.js";
import type { ModelAdapter, ModelOutcome, ModelRequest } from "./types.js";
import { ESTIMATED_CHARS_PER_TOKEN, estimateRequestTokens, openAIUsage, tokenCounts } from "./usage.js";

/**
 * OpenAI Chat Completions, for OpenAI and every compatible server (vLLM, Ollama, llama.cpp,
 * DeepSeek, OpenRouter...), on the official SDK with its retries off (the engine retries).
 */

export interface OpenAIChatOptions extends ProviderAdapterOptions {
  maxTokensField?: MaxTokensField;
  reasoningEffort?: ReasoningEffortMap;
  replayReasoning?: boolean;
}

/** Thinking arrives in one of these delta fields, depending on the server. */
const REASONING_FIELDS = ["reasoning_content", "reasoning"] as const;

type ChunkDelta = ChatCompletionChunk.Choice.Delta &
  Partial<Record<(typeof REASONING_FIELDS)[number], unknown>>;

/** `prompt_tokens` includes the cached part; `total` = prompt + completion. */
export function chatUsage(usage: ChatCompletionChunk["usage"]): TokenCounts {
  if (!usage) return emptyTokenCounts();
  const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
  return openAIUsage(usage.prompt_tokens, cached, usage.completion_tokens);
}

export function createOpenAIChatModel(options: OpenAIChatOptions): ModelAdapter {
  // The SDK is imported, and its client created, on the first request.
  const getClient = lazyOpenAIClient(options);
  const ids = options.toolCallIds ?? createToolCallIdRegistry();
  const requestOptions: ChatRequestOptions = {
    modelId: options.modelId,
    ids,
    maxTokensField: options.maxTokensField ?? "max_tokens",
    reasoningEffort: options.reasoningEffort ?? COMPATIBLE_REASONING_EFFORT,
    replayReasoning: options.replayReasoning ?? true,
  };
  const info = adapterInfo(options, false);

  async function* stream(request: ModelRequest): AsyncGenerator<OmniMessage, ModelOutcome> {
    const parts = beginProviderStream(options, ids, request);
    const { wire, blocks } = parts;
    let usage: TokenCounts | undefined;

    async function* read(): AsyncGenerator<OmniMessage, StreamRead> {
      let finished = false;
      /** The tool call being streamed: its index and the id the provider gave it. */
      let current: { index: number; providerId: string | undefined } | undefined;
      const closedIndexes = new Set<number>();
      const body = chatRequestBody(request, requestOptions);
      const client = await getClient();
      const response = await client.chat.completions.create(body, { signal: wire.signal });
      for await (const chunk of wire.items(response)) {
        if (chunk.usage) usage = chatUsage(chunk.usage);
        const choice = chunk.choices?.[0];
        if (!choice) continue;
        const delta = (choice.delta ?? {}) as ChunkDelta;
        for (const field of REASONING_FIELDS) {
          const value = delta[field];
          if (typeof value === "string" && value !== "") {
            if (blocks.openKind !== "thinking") {
              yield* blocks.startThinking({ wire: OPENAI_CHAT_WIRE, reasoning_field: field });
            }
            yield* blocks.thinking(value);
          }
        }
        if (typeof delta.content === "string" && delta.content !== "") yield* blocks.text(delta.content);
        for (const call of delta.tool_calls ?? []) {
          const index = call.index ?? 0;
          const startsNew =
            current === undefined ||
            index !== current.index ||
            (call.id !== undefined &&
              call.id !== "" &&
              call.id !== current.providerId &&
              blocks.openKind === "tool_call");
          if (startsNew) {
            if (closedIndexes.has(index) && index !== current?.index) {
              const failure = outcome(
                "malformed",
                `tool call ${index} received more arguments after it had ended`,
              );
              return { finished, failure };
            }
            if (current) closedIndexes.add(current.index);
            current = { index, providerId: call.id || undefined };
            yield* blocks.startToolCall(ids.intern(call.id || undefined), call.function?.name ?? "");
          } else if (call.function?.name) {
            blocks.appendToolCallName(call.function.name);
          }
          if (call.function?.arguments) yield* blocks.toolCallArguments(call.function.arguments);
        }
        if (choice.finish_reason) {
          finished = true;
          yield* blocks.close();
        }
      }
      return { finished };
    }

    const failure = yield* endProviderStream(read(), parts);
    if (failure) return withUsage(failure, usage);
    // Servers that ignore `include_usage` report nothing: estimate, so context limits still work.
    usage ??= tokenCounts({
      uncached: estimateRequestTokens(request),
      cacheRead: 0,
      cacheWrite: 0,
      output: Math.ceil(blocks.outputChars / ESTIMATED_CHARS_PER_TOKEN),
    });
    return { status: "completed", usage };
  }

  return { info, stream };
}

export { OPENAI_CHAT_WIRE };
