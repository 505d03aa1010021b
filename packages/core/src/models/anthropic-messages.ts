import type { MessageDeltaUsage, RawMessageStreamEvent, Usage } from "@anthropic-ai/sdk/resources/messages";
import { emptyTokenCounts, type OmniMessage, type TokenCounts } from "@penguin/protocol";
import { adapterInfo, type ProviderAdapterOptions } from "./adapter-setup.js";
import { ANTHROPIC_WIRE, anthropicRequestBody } from "./anthropic-request.js";
import { withUsage } from "./outcomes.js";
import { lazyAnthropicClient } from "./sdk-client.js";
import { beginProviderStream, endProviderStream, type StreamRead } from "./stream-ending.js";
import { createToolCallIdRegistry } from "./tool-call-ids.js";
import type { ModelAdapter, ModelOutcome, ModelRequest } from "./types.js";
import { tokenCounts } from "./usage.js";

/**
 * Anthropic Messages on the official SDK (retries off). Thinking blocks keep their signature
 * byte for byte in `fidelity`, so they can be sent back on the next request as the API requires.
 */

export type AnthropicMessagesOptions = ProviderAdapterOptions;

type UsageFields = Partial<
  Pick<Usage, "input_tokens" | "cache_read_input_tokens" | "cache_creation_input_tokens" | "output_tokens">
>;

/** Anthropic's `input_tokens` excludes the cache; `total` = input + cache read + cache write + output. */
export function anthropicUsage(fields: UsageFields): TokenCounts {
  return tokenCounts({
    uncached: fields.input_tokens ?? 0,
    cacheRead: fields.cache_read_input_tokens ?? 0,
    cacheWrite: fields.cache_creation_input_tokens ?? 0,
    output: fields.output_tokens ?? 0,
  });
}

/** `message_delta` usage is cumulative; fields it leaves null keep their `message_start` value. */
function mergeUsage(into: UsageFields, delta: MessageDeltaUsage | Usage): void {
  for (const key of [
    "input_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
    "output_tokens",
  ] as const) {
    const value = delta[key];
    if (typeof value === "number") into[key] = value;
  }
}

export function createAnthropicMessagesModel(options: AnthropicMessagesOptions): ModelAdapter {
  // The SDK is imported, and its client created, on the first request.
  const getClient = lazyAnthropicClient(options);
  const ids = options.toolCallIds ?? createToolCallIdRegistry();
  const info = adapterInfo(options, true);

  async function* stream(request: ModelRequest): AsyncGenerator<OmniMessage, ModelOutcome> {
    const parts = beginProviderStream(options, ids, request);
    const { wire, blocks } = parts;
    const usage: UsageFields = {};

    async function* read(): AsyncGenerator<OmniMessage, StreamRead> {
      let finished = false;
      let signature = "";
      const body = anthropicRequestBody(request, { modelId: options.modelId, ids });
      const client = await getClient();
      const events = await client.messages.create(body, { signal: wire.signal });
      for await (const event of wire.items<RawMessageStreamEvent>(events)) {
        switch (event.type) {
          case "message_start":
            mergeUsage(usage, event.message.usage);
            break;
          case "content_block_start": {
            const block = event.content_block;
            if (block.type === "thinking") {
              signature = block.signature ?? "";
              yield* blocks.startThinking({ wire: ANTHROPIC_WIRE });
              if (block.thinking) yield* blocks.thinking(block.thinking);
            } else if (block.type === "redacted_thinking") {
              yield* blocks.startThinking({ wire: ANTHROPIC_WIRE, redacted_data: block.data });
            } else if (block.type === "text") {
              yield* blocks.startText();
              if (block.text) yield* blocks.text(block.text);
            } else if (block.type === "tool_use") {
              yield* blocks.startToolCall(ids.intern(block.id), block.name);
            } else {
              // Server-side tool blocks are not part of Penguin's context.
              yield* blocks.close();
            }
            break;
          }
          case "content_block_delta": {
            const delta = event.delta;
            if (delta.type === "thinking_delta") yield* blocks.thinking(delta.thinking);
            else if (delta.type === "signature_delta") signature += delta.signature;
            else if (delta.type === "text_delta") yield* blocks.text(delta.text);
            else if (delta.type === "input_json_delta") yield* blocks.toolCallArguments(delta.partial_json);
            break;
          }
          case "content_block_stop":
            if (blocks.openKind === "thinking" && signature !== "") {
              yield* blocks.close({ signature });
            } else {
              yield* blocks.close();
            }
            signature = "";
            break;
          case "message_delta":
            mergeUsage(usage, event.usage);
            break;
          case "message_stop":
            finished = true;
            break;
        }
      }
      return { finished };
    }

    const failure = yield* endProviderStream(read(), parts);
    if (failure) {
      return withUsage(failure, Object.keys(usage).length > 0 ? anthropicUsage(usage) : emptyTokenCounts());
    }
    return { status: "completed", usage: anthropicUsage(usage) };
  }

  return { info, stream };
}
