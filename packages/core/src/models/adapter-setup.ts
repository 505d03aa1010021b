import type { ToolCallIdRegistry } from "./tool-call-ids.js";
import type { ModelInfo, ModelRequest } from "./types.js";

/** What every HTTP adapter is configured with, whatever its wire protocol. */
export interface AdapterConnection {
  provider: string;
  modelId: string;
  baseUrl: string;
  apiKey: string;
  contextWindow?: number;
  vision?: boolean;
  timeoutMs?: number;
  headers?: Record<string, string>;
}

export function adapterInfo(options: AdapterConnection, visionByDefault: boolean): ModelInfo {
  return {
    provider: options.provider,
    modelId: options.modelId,
    contextWindow: options.contextWindow,
    vision: options.vision ?? visionByDefault,
  };
}

/** The context's tool call ids are taken, so an id the provider repeats later is made unique. */
export function rememberContextCallIds(ids: ToolCallIdRegistry, request: ModelRequest): void {
  for (const message of request.messages) {
    if (message.payload.type === "tool_call") ids.remember(message.payload.tool_call_id);
  }
}
