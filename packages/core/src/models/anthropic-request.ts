import type {
  ContentBlockParam,
  ImageBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  TextBlockParam,
  ToolResultBlockParam,
} from "@anthropic-ai/sdk/resources/messages";
import type { CompleteModelPayload, Fidelity } from "@penguin/protocol";
import type { ToolCallIdRegistry } from "./tool-call-ids.js";
import type { ModelRequest, ThinkingLevel } from "./types.js";

/** Converts Penguin's context into an Anthropic Messages request body. */

export const ANTHROPIC_WIRE = "anthropic-messages";

/** Anthropic requires `max_tokens`; used when the engine leaves it open (system_config default). */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 32_000;
/** The smallest thinking budget the API accepts. */
export const ANTHROPIC_MIN_THINKING_BUDGET = 1024;
/** Output kept for the answer itself when the thinking budget is capped under `max_tokens`. */
export const ANTHROPIC_MIN_ANSWER_TOKENS = 1024;

/**
 * Thinking budget per level (`thinking: {type: "enabled", budget_tokens}`); `none` sends no
 * thinking config. The budget must stay below `max_tokens`, so it is capped to leave room for
 * the answer, and thinking is left off when even the minimum budget does not fit.
 */
export const ANTHROPIC_THINKING_BUDGET: Record<ThinkingLevel, number> = {
  none: 0,
  low: 2_048,
  medium: 8_192,
  high: 16_384,
  max: 24_576,
};

const EPHEMERAL = { type: "ephemeral" } as const;

export interface AnthropicRequestOptions {
  modelId: string;
  ids: ToolCallIdRegistry;
}

/** Thinking replay data: the signature (or redacted data) the API needs to accept the block back. */
function anthropicThinking(
  fidelity: Fidelity | undefined,
): { signature?: string; redacted?: string } | undefined {
  if (fidelity?.wire !== ANTHROPIC_WIRE) return undefined;
  const signature = typeof fidelity.signature === "string" ? fidelity.signature : undefined;
  const redacted = typeof fidelity.redacted_data === "string" ? fidelity.redacted_data : undefined;
  return signature !== undefined || redacted !== undefined ? { signature, redacted } : undefined;
}

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;
const IMAGE_TYPES = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"]);

function imageBlock(url: string): ImageBlockParam | TextBlockParam {
  const match = DATA_URL.exec(url);
  if (!match) return { type: "image", source: { type: "url", url } };
  const [, mediaType, data] = match;
  if (!IMAGE_TYPES.has(mediaType!))
    return { type: "text", text: `[image of type ${mediaType} omitted: not supported]` };
  return {
    type: "image",
    source: { type: "base64", media_type: mediaType as "image/png", data: data! },
  };
}

/** Tool input must be an object; malformed arguments are sent back as the model wrote them. */
function toolInput(argumentsText: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(argumentsText);
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // falls through
  }
  return { malformed_arguments: argumentsText };
}

function toolResult(p: Extract<CompleteModelPayload, { type: "tool_call_output" }>, ids: ToolCallIdRegistry) {
  const block: ToolResultBlockParam = { type: "tool_result", tool_use_id: ids.toWire(p.tool_call_id) };
  const images = p.images ?? [];
  block.content =
    images.length === 0
      ? p.output
      : [...(p.output === "" ? [] : [{ type: "text" as const, text: p.output }]), ...images.map(imageBlock)];
  if (p.stop_reason !== undefined && p.stop_reason !== "completed") block.is_error = true;
  return block;
}

/**
 * Tool results answer the assistant message before them, in its call order, at the start of
 * the next user message (the API requires them first).
 */
function orderToolResults(blocks: ContentBlockParam[], callOrder: string[]): ContentBlockParam[] {
  const results = blocks.filter((b) => b.type === "tool_result") as ToolResultBlockParam[];
  if (results.length === 0) return blocks;
  const rank = (id: string) => {
    const at = callOrder.indexOf(id);
    return at < 0 ? Number.MAX_SAFE_INTEGER : at;
  };
  const sorted = results
    .map((block, position) => ({ block, position }))
    .sort((a, b) => rank(a.block.tool_use_id) - rank(b.block.tool_use_id) || a.position - b.position)
    .map(({ block }) => block);
  return [...sorted, ...blocks.filter((b) => b.type !== "tool_result")];
}

export function anthropicMessages(request: ModelRequest, ids: ToolCallIdRegistry): MessageParam[] {
  const messages: MessageParam[] = [];
  let role: "user" | "assistant" | undefined;
  let blocks: ContentBlockParam[] = [];
  let lastCallOrder: string[] = [];
  const flush = () => {
    if (role === undefined || blocks.length === 0) return;
    if (role === "user") blocks = orderToolResults(blocks, lastCallOrder);
    else lastCallOrder = blocks.flatMap((b) => (b.type === "tool_use" ? [b.id] : []));
    messages.push({ role, content: blocks });
    blocks = [];
  };
  const add = (blockRole: "user" | "assistant", block: ContentBlockParam | undefined) => {
    if (!block) return;
    if (blockRole !== role) {
      flush();
      role = blockRole;
    }
    blocks.push(block);
  };

  for (const { payload } of request.messages) {
    const p = payload as CompleteModelPayload;
    switch (p.type) {
      case "text":
        // The API refuses empty text blocks.
        if (p.text !== "") add(p.role, { type: "text", text: p.text });
        break;
      case "thinking": {
        const replay = anthropicThinking(p.fidelity);
        if (replay?.redacted !== undefined)
          add("assistant", { type: "redacted_thinking", data: replay.redacted });
        else if (replay?.signature !== undefined) {
          add("assistant", { type: "thinking", thinking: p.thinking, signature: replay.signature });
        }
        // Thinking without a signature from this API cannot be sent back: it is dropped.
        break;
      }
      case "tool_call":
        add("assistant", {
          type: "tool_use",
          id: ids.toWire(p.tool_call_id),
          name: p.name,
          input: toolInput(p.arguments),
        });
        break;
      case "tool_call_output":
        add("user", toolResult(p, ids));
        break;
      case "image_url":
        add("user", imageBlock(p.image_url));
        break;
      case "inline_data":
        if (p.role !== "user") break;
        if (p.mime_type === "application/pdf") {
          add("user", {
            type: "document",
            source: { type: "base64", media_type: "application/pdf", data: p.data },
          });
        } else {
          add("user", imageBlock(`data:${p.mime_type};base64,${p.data}`));
        }
        break;
    }
  }
  flush();
  markLastMessageForCache(messages);
  return messages;
}

/** The last message's last cacheable block gets a breakpoint, so the whole prefix is cached. */
function markLastMessageForCache(messages: MessageParam[]): void {
  const last = messages.at(-1);
  if (!last || typeof last.content === "string") return;
  for (let i = last.content.length - 1; i >= 0; i--) {
    const block = last.content[i]!;
    if (block.type === "thinking" || block.type === "redacted_thinking") continue;
    (block as { cache_control?: unknown }).cache_control = EPHEMERAL;
    return;
  }
}

export function anthropicThinkingConfig(
  level: ThinkingLevel,
  maxTokens: number,
): MessageCreateParamsStreaming["thinking"] | undefined {
  const wanted = ANTHROPIC_THINKING_BUDGET[level];
  if (wanted === 0) return undefined;
  const budget = Math.min(wanted, maxTokens - ANTHROPIC_MIN_ANSWER_TOKENS);
  if (budget < ANTHROPIC_MIN_THINKING_BUDGET) return undefined;
  return { type: "enabled", budget_tokens: budget };
}

export function anthropicRequestBody(
  request: ModelRequest,
  options: AnthropicRequestOptions,
): MessageCreateParamsStreaming {
  const maxTokens = request.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS;
  const body: MessageCreateParamsStreaming = {
    model: options.modelId,
    max_tokens: maxTokens,
    messages: anthropicMessages(request, options.ids),
    stream: true,
  };
  // Cache breakpoints on the system prompt, the tools and the last message (3 of the 4 allowed).
  if (request.systemPrompt !== "") {
    body.system = [{ type: "text", text: request.systemPrompt, cache_control: EPHEMERAL }];
  }
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool, index) => ({
      name: tool.name,
      description: tool.description,
      input_schema: tool.parameters as { type: "object" },
      ...(index === request.tools.length - 1 ? { cache_control: EPHEMERAL } : {}),
    }));
  }
  const thinking = anthropicThinkingConfig(request.thinkingLevel, maxTokens);
  if (thinking) body.thinking = thinking;
  return body;
}
