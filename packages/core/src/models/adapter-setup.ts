import type { ToolCallIdRegistry } from "./tool-call-ids.js";
import type { ModelInfo, ModelRequest } from "./types.js";

/** What every HTTP adapter is configured with, whatever its wire protocol. */
export interface AdapterConnection {
  provider: string;
  modelId: string;
  /**
   * Where the API is: up to and including `/v1` for the OpenAI APIs (e.g.
   * `https://api.openai.com/v1`), the origin for Anthropic (e.g. `https://api.anthropic.com`,
   * to which the SDK appends `/v1/messages`).
   */
  baseUrl: string;
  apiKey: string;
  contextWindow?: number;
  vision?: boolean;
  /** Time to wait for the response headers. */
  timeoutMs?: number;
  /** Extra headers for every request (e.g. OpenRouter's `HTTP-Referer`). */
  headers?: Record<string, string>;
}

/** The options every provider adapter takes, besides those of its own wire protocol. */
export interface ProviderAdapterOptions extends AdapterConnection {
  /** Longest silence between two stream chunks before the request ends as `timeout`. */
  idleTimeoutMs?: number;
  /** The session's tool call ids (shared by every adapter the session uses). */
  toolCallIds?: ToolCallIdRegistry;
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
