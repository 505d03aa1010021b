import type { CompleteModelPayload, Fidelity } from "@penguin/protocol";
import type {
  ChatCompletionContentPart,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
} from "openai/resources/chat/completions";
import type { ToolCallIdRegistry } from "./tool-call-ids.js";
import type { ModelRequest, ThinkingLevel } from "./types.js";

/** Converts Penguin's context into an OpenAI Chat Completions request body. */

export const OPENAI_CHAT_WIRE = "openai-chat";

/** Where the request's output cap goes: OpenAI proper wants `max_completion_tokens`, most compatible servers `max_tokens`. */
export type MaxTokensField = "max_completion_tokens" | "max_tokens";

/**
 * `reasoning_effort` per thinking level; `null` leaves the field out (the model's default, and
 * the only safe choice for servers or models without reasoning). OpenAI documents
 * none/minimal/low/medium/high/xhigh; compatible servers mostly know low/medium/high.
 */
export type ReasoningEffortMap = Record<ThinkingLevel, string | null>;

export const OPENAI_REASONING_EFFORT: ReasoningEffortMap = {
  none: null,
  low: "low",
  medium: "medium",
  high: "high",
  max: "xhigh",
};
export const COMPATIBLE_REASONING_EFFORT: ReasoningEffortMap = {
  none: null,
  low: "low",
  medium: "medium",
  high: "high",
  max: "high",
};

export interface ChatRequestOptions {
  modelId: string;
  ids: ToolCallIdRegistry;
  maxTokensField: MaxTokensField;
  reasoningEffort: ReasoningEffortMap;
  /**
   * Send earlier thinking back in the field the server streamed it in (`reasoning_content`
   * for vLLM/DeepSeek-style servers), when the thinking came from this wire. Off: thinking is
   * dropped from the request.
   */
  replayReasoning: boolean;
}

/** The reasoning field name a thinking message was streamed in, if it came from this wire. */
export function reasoningFieldOf(fidelity: Fidelity | undefined): string | undefined {
  if (fidelity?.wire !== OPENAI_CHAT_WIRE) return undefined;
  return typeof fidelity.reasoning_field === "string" ? fidelity.reasoning_field : undefined;
}

function imagePart(url: string): ChatCompletionContentPart {
  return { type: "image_url", image_url: { url } };
}

/** Context order is kept; consecutive user items share one message, one assistant turn is one message. */
export function chatMessages(
  request: ModelRequest,
  options: ChatRequestOptions,
): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  if (request.systemPrompt !== "") out.push({ role: "system", content: request.systemPrompt });

  let userParts: ChatCompletionContentPart[] = [];
  let assistant: {
    text: string[];
    toolCalls: ChatCompletionMessageToolCall[];
    reasoning: Map<string, string>;
  } | null = null;
  let toolImages: ChatCompletionContentPart[] = [];

  const flushUser = () => {
    if (userParts.length === 0) return;
    const onlyText = userParts.every((part) => part.type === "text");
    const content = onlyText
      ? userParts.map((part) => (part as { text: string }).text).join("\n\n")
      : userParts;
    out.push({ role: "user", content });
    userParts = [];
  };
  const flushAssistant = () => {
    if (!assistant) return;
    const { text, toolCalls, reasoning } = assistant;
    assistant = null;
    if (text.length === 0 && toolCalls.length === 0) return;
    const message: ChatCompletionMessageParam & Record<string, unknown> = {
      role: "assistant",
      content: text.length > 0 ? text.join("") : null,
    };
    if (toolCalls.length > 0) message.tool_calls = toolCalls;
    for (const [field, value] of reasoning) message[field] = value;
    out.push(message);
  };
  /** Tool messages must directly follow their assistant message; their images come after them. */
  const flushToolImages = () => {
    userParts.push(...toolImages);
    toolImages = [];
  };

  for (const { payload } of request.messages) {
    const p = payload as CompleteModelPayload;
    if (p.type !== "tool_call_output") flushToolImages();
    if (p.role === "assistant") {
      flushUser();
      assistant ??= { text: [], toolCalls: [], reasoning: new Map() };
      if (p.type === "text") assistant.text.push(p.text);
      else if (p.type === "tool_call") {
        assistant.toolCalls.push({
          id: options.ids.toWire(p.tool_call_id),
          type: "function",
          function: { name: p.name, arguments: p.arguments },
        });
      } else if (p.type === "thinking") {
        const field = options.replayReasoning ? reasoningFieldOf(p.fidelity) : undefined;
        if (field) assistant.reasoning.set(field, (assistant.reasoning.get(field) ?? "") + p.thinking);
      }
      // Assistant inline data (generated images) has no place in a Chat Completions request.
      continue;
    }
    flushAssistant();
    if (p.type === "tool_call_output") {
      flushUser();
      out.push({ role: "tool", tool_call_id: options.ids.toWire(p.tool_call_id), content: p.output });
      if (p.images && p.images.length > 0) {
        toolImages.push({ type: "text", text: `Images returned by tool call ${p.tool_call_id}:` });
        for (const image of p.images) toolImages.push(imagePart(image));
      }
    } else if (p.type === "text") {
      userParts.push({ type: "text", text: p.text });
    } else if (p.type === "image_url") {
      userParts.push(imagePart(p.image_url));
    } else if (p.type === "inline_data") {
      if (p.mime_type.startsWith("image/")) userParts.push(imagePart(`data:${p.mime_type};base64,${p.data}`));
      else
        userParts.push({ type: "text", text: `[attached ${p.mime_type} data omitted: not supported here]` });
    }
  }
  flushToolImages();
  flushAssistant();
  flushUser();
  return out;
}

export function chatRequestBody(
  request: ModelRequest,
  options: ChatRequestOptions,
): ChatCompletionCreateParamsStreaming {
  const body: ChatCompletionCreateParamsStreaming & Record<string, unknown> = {
    model: options.modelId,
    messages: chatMessages(request, options),
    stream: true,
    stream_options: { include_usage: true },
  };
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
  }
  if (request.maxTokens !== undefined) body[options.maxTokensField] = request.maxTokens;
  const effort = options.reasoningEffort[request.thinkingLevel];
  if (effort !== null)
    body.reasoning_effort = effort as ChatCompletionCreateParamsStreaming["reasoning_effort"];
  return body;
}
