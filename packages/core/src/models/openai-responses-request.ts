import type { CompleteModelPayload, Fidelity } from "@penguin/protocol";
import type {
  ResponseCreateParamsStreaming,
  ResponseFunctionCallOutputItem,
  ResponseInputContent,
  ResponseInputItem,
} from "openai/resources/responses/responses";
import type { ReasoningEffortMap } from "./openai-chat-request.js";
import type { ToolCallIdRegistry } from "./tool-call-ids.js";
import type { ModelRequest } from "./types.js";

/** Converts Penguin's context into an OpenAI Responses request body (stateless: `store: false`). */

export const OPENAI_RESPONSES_WIRE = "openai-responses";

/** A reasoning item as the API returned it; sent back whole so the model keeps its reasoning. */
export interface ReasoningItemReplay {
  id: string;
  encrypted_content?: string;
  summary: { type: "summary_text"; text: string }[];
}

export function reasoningItemOf(fidelity: Fidelity | undefined): ReasoningItemReplay | undefined {
  if (fidelity?.wire !== OPENAI_RESPONSES_WIRE) return undefined;
  const item = fidelity.reasoning_item as ReasoningItemReplay | undefined;
  return typeof item?.id === "string" ? item : undefined;
}

export interface ResponsesRequestOptions {
  modelId: string;
  ids: ToolCallIdRegistry;
  reasoningEffort: ReasoningEffortMap;
}

function imageContent(url: string): ResponseInputContent {
  return { type: "input_image", image_url: url, detail: "auto" };
}

export function responsesInput(request: ModelRequest, ids: ToolCallIdRegistry): ResponseInputItem[] {
  const items: ResponseInputItem[] = [];
  let userParts: ResponseInputContent[] = [];
  const flushUser = () => {
    if (userParts.length === 0) return;
    items.push({ role: "user", content: userParts });
    userParts = [];
  };

  for (const { payload } of request.messages) {
    const p = payload as CompleteModelPayload;
    if (p.role === "user" && p.type !== "tool_call_output") {
      if (p.type === "text") userParts.push({ type: "input_text", text: p.text });
      else if (p.type === "image_url") userParts.push(imageContent(p.image_url));
      else if (p.type === "inline_data") {
        if (p.mime_type.startsWith("image/"))
          userParts.push(imageContent(`data:${p.mime_type};base64,${p.data}`));
        else
          userParts.push({
            type: "input_file",
            file_data: `data:${p.mime_type};base64,${p.data}`,
            filename: "attachment",
          });
      }
      continue;
    }
    flushUser();
    switch (p.type) {
      case "text":
        items.push({ role: "assistant", content: p.text });
        break;
      case "thinking": {
        // Without its encrypted content a reasoning item cannot be replayed statelessly.
        const item = reasoningItemOf(p.fidelity);
        if (item?.encrypted_content) {
          items.push({
            type: "reasoning",
            id: item.id,
            summary: item.summary,
            encrypted_content: item.encrypted_content,
          });
        }
        break;
      }
      case "tool_call":
        items.push({
          type: "function_call",
          call_id: ids.toWire(p.tool_call_id),
          name: p.name,
          arguments: p.arguments,
        });
        break;
      case "tool_call_output": {
        const images = p.images ?? [];
        const output: string | ResponseFunctionCallOutputItem[] =
          images.length === 0
            ? p.output
            : [
                { type: "input_text", text: p.output },
                ...images.map(
                  (url): ResponseFunctionCallOutputItem => ({
                    type: "input_image",
                    image_url: url,
                    detail: "auto",
                  }),
                ),
              ];
        items.push({ type: "function_call_output", call_id: ids.toWire(p.tool_call_id), output });
        break;
      }
    }
  }
  flushUser();
  return items;
}

export function responsesRequestBody(
  request: ModelRequest,
  options: ResponsesRequestOptions,
): ResponseCreateParamsStreaming {
  const body: ResponseCreateParamsStreaming = {
    model: options.modelId,
    input: responsesInput(request, options.ids),
    stream: true,
    // Stateless: the harness sends the whole context; reasoning survives as encrypted content.
    store: false,
    include: ["reasoning.encrypted_content"],
  };
  if (request.systemPrompt !== "") body.instructions = request.systemPrompt;
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: "function",
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters,
      strict: false,
    }));
  }
  if (request.maxTokens !== undefined) body.max_output_tokens = request.maxTokens;
  const effort = options.reasoningEffort[request.thinkingLevel];
  if (effort !== null) {
    body.reasoning = { effort: effort as "high", summary: "auto" };
  }
  return body;
}
