import { emptyTokenCounts, type OmniMessage, type TokenCounts } from "@penguin/protocol";
import type { ResponseStreamEvent, ResponseUsage } from "openai/resources/responses/responses";
import { adapterInfo, type ProviderAdapterOptions } from "./adapter-setup.js";
import { OPENAI_REASONING_EFFORT, type ReasoningEffortMap } from "./openai-chat-request.js";
import {
  OPENAI_RESPONSES_WIRE,
  type ReasoningItemReplay,
  responsesRequestBody,
} from "./openai-responses-request.js";
import { outcome, withUsage } from "./outcomes.js";
import { lazyOpenAIClient } from "./sdk-client.js";
import { beginProviderStream, endProviderStream, type StreamRead } from "./stream-ending.js";
import { createToolCallIdRegistry } from "./tool-call-ids.js";
import type { ModelAdapter, ModelOutcome, ModelRequest } from "./types.js";
import { openAIUsage } from "./usage.js";

/**
 * OpenAI Responses on the official SDK (retries off), stateless (`store: false`): reasoning
 * items come back with their encrypted content, kept in `fidelity` and replayed on the next
 * request.
 */

export interface OpenAIResponsesOptions extends ProviderAdapterOptions {
  reasoningEffort?: ReasoningEffortMap;
}

/** `input_tokens` includes the cached part; `total` = input + output. */
export function responsesUsage(usage: ResponseUsage | null | undefined): TokenCounts {
  if (!usage) return emptyTokenCounts();
  const cached = usage.input_tokens_details?.cached_tokens ?? 0;
  return openAIUsage(usage.input_tokens, cached, usage.output_tokens);
}

/** Separates the parts of a multi-part reasoning summary in the one thinking message. */
const SUMMARY_PART_SEPARATOR = "\n\n";

type Item = {
  type: string;
  id?: string;
  call_id?: string;
  name?: string;
  encrypted_content?: string | null;
  summary?: { text: string }[];
};

export function createOpenAIResponsesModel(options: OpenAIResponsesOptions): ModelAdapter {
  // The SDK is imported, and its client created, on the first request.
  const getClient = lazyOpenAIClient(options);
  const ids = options.toolCallIds ?? createToolCallIdRegistry();
  const reasoningEffort = options.reasoningEffort ?? OPENAI_REASONING_EFFORT;
  const info = adapterInfo(options, true);

  async function* stream(request: ModelRequest): AsyncGenerator<OmniMessage, ModelOutcome> {
    const parts = beginProviderStream(options, ids, request);
    const { wire, blocks } = parts;
    let usage = emptyTokenCounts();

    async function* read(): AsyncGenerator<OmniMessage, StreamRead> {
      const body = responsesRequestBody(request, { modelId: options.modelId, ids, reasoningEffort });
      const client = await getClient();
      const events = await client.responses.create(body, { signal: wire.signal });
      let finished = false;
      for await (const event of wire.items<ResponseStreamEvent>(events)) {
        switch (event.type) {
          case "response.output_item.added": {
            const item = event.item as Item;
            if (item.type === "reasoning") yield* blocks.startThinking();
            else if (item.type === "message") yield* blocks.startText();
            else if (item.type === "function_call")
              yield* blocks.startToolCall(ids.intern(item.call_id), item.name ?? "");
            else yield* blocks.close();
            break;
          }
          case "response.reasoning_summary_part.added":
            if (event.summary_index > 0) yield* blocks.thinking(SUMMARY_PART_SEPARATOR);
            break;
          case "response.reasoning_summary_text.delta":
            yield* blocks.thinking(event.delta);
            break;
          case "response.output_text.delta":
            yield* blocks.text(event.delta);
            break;
          case "response.function_call_arguments.delta":
            yield* blocks.toolCallArguments(event.delta);
            break;
          case "response.output_item.done": {
            const item = event.item as Item;
            if (item.type === "reasoning" && blocks.openKind === "thinking") {
              const replay: ReasoningItemReplay = {
                id: item.id ?? "",
                summary: (item.summary ?? []).map((part) => ({ type: "summary_text", text: part.text })),
                ...(item.encrypted_content ? { encrypted_content: item.encrypted_content } : {}),
              };
              yield* blocks.close({ wire: OPENAI_RESPONSES_WIRE, reasoning_item: replay });
            } else {
              yield* blocks.close();
            }
            break;
          }
          case "response.completed":
            usage = responsesUsage(event.response.usage);
            finished = true;
            break;
          case "response.incomplete":
            // Cut short by max_output_tokens or a content filter: what arrived is the answer.
            usage = responsesUsage(event.response.usage);
            finished = true;
            break;
          case "response.failed": {
            usage = responsesUsage(event.response.usage);
            const error = event.response.error;
            const failure = outcome(
              "failed",
              `the provider failed the response: ${error?.message ?? "no reason given"}`,
            );
            return { finished, failure };
          }
          case "error": {
            const failure = outcome("failed", `the provider reported an error mid-stream: ${event.message}`);
            return { finished, failure };
          }
        }
      }
      return { finished };
    }

    const failure = yield* endProviderStream(read(), parts);
    if (failure) return withUsage(failure, usage);
    return { status: "completed", usage };
  }

  return { info, stream };
}
