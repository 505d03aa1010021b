import { emptyTokenCounts, type OmniMessage, type TokenCounts } from "@penguin/protocol";
import type { ResponseStreamEvent, ResponseUsage } from "openai/resources/responses/responses";
import { adapterInfo, rememberContextCallIds } from "./adapter-setup.js";
import { BlockStream } from "./block-stream.js";
import { OPENAI_REASONING_EFFORT, type ReasoningEffortMap } from "./openai-chat-request.js";
import {
  OPENAI_RESPONSES_WIRE,
  type ReasoningItemReplay,
  responsesRequestBody,
} from "./openai-responses-request.js";
import { type FailureOutcome, outcome, outcomeOfSdkError } from "./outcomes.js";
import { lazyOpenAIClient } from "./sdk-client.js";
import { createToolCallIdRegistry, type ToolCallIdRegistry } from "./tool-call-ids.js";
import type { ModelAdapter, ModelOutcome, ModelRequest } from "./types.js";
import { tokenCounts } from "./usage.js";
import { DEFAULT_IDLE_TIMEOUT_MS, WireControl } from "./wire-control.js";

/**
 * OpenAI Responses on the official SDK (retries off), stateless (`store: false`): reasoning
 * items come back with their encrypted content, kept in `fidelity` and replayed on the next
 * request.
 */

export interface OpenAIResponsesOptions {
  provider: string;
  modelId: string;
  /** Up to and including `/v1`. */
  baseUrl: string;
  apiKey: string;
  contextWindow?: number;
  vision?: boolean;
  timeoutMs?: number;
  idleTimeoutMs?: number;
  reasoningEffort?: ReasoningEffortMap;
  toolCallIds?: ToolCallIdRegistry;
  headers?: Record<string, string>;
}

/** `input_tokens` includes the cached part; `total` = input + output. */
export function responsesUsage(usage: ResponseUsage | null | undefined): TokenCounts {
  if (!usage) return emptyTokenCounts();
  const cached = usage.input_tokens_details?.cached_tokens ?? 0;
  return tokenCounts({
    uncached: Math.max(0, usage.input_tokens - cached),
    cacheRead: cached,
    cacheWrite: 0,
    output: usage.output_tokens,
  });
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
    rememberContextCallIds(ids, request);
    const wire = new WireControl(request.signal, options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS);
    const blocks = new BlockStream();
    let usage = emptyTokenCounts();
    let finished = false;
    let failure: FailureOutcome | undefined;

    try {
      const body = responsesRequestBody(request, { modelId: options.modelId, ids, reasoningEffort });
      const client = await getClient();
      const events = await client.responses.create(body, { signal: wire.signal });
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
            failure = outcome(
              "failed",
              `the provider failed the response: ${error?.message ?? "no reason given"}`,
            );
            break;
          }
          case "error":
            failure = outcome("failed", `the provider reported an error mid-stream: ${event.message}`);
            break;
        }
        if (failure) break;
      }
    } catch (error) {
      failure = outcomeOfSdkError(error, options);
    } finally {
      wire.dispose();
    }
    failure = wire.stopOutcome() ?? failure;
    if (!failure && !finished)
      failure = outcome("failed", "the stream ended before the model finished its answer");
    if (failure) {
      yield* blocks.abandon(failure.status);
      return { ...failure, usage };
    }
    yield* blocks.close();
    return { status: "completed", usage };
  }

  return { info, stream };
}
