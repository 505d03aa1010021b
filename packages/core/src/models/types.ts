import type { CompleteModelPayload, OmniMessage, StopReason, TokenCounts, ToolSpec } from "@penguin/protocol";
import type { ThinkingLevel } from "@penguin/state";

/** How hard the model should think (state's one list); mapped to each provider's effort or budget. */
export type { ThinkingLevel };

/** One model request: the whole context, sent as is (the prefix stays byte-stable). */
export interface ModelRequest {
  systemPrompt: string;
  /** Complete model messages in context order (user text, assistant output, tool outputs...). */
  messages: OmniMessage<CompleteModelPayload>[];
  tools: ToolSpec[];
  thinkingLevel: ThinkingLevel;
  /** Already clamped to what the context window leaves. */
  maxTokens?: number;
  signal?: AbortSignal;
}

/** How a request ended. Adapters report failures here; they never throw and never retry. */
export interface ModelOutcome {
  status: StopReason;
  errorMessage?: string;
  /** From a `retry-after` header, when the provider sent one. */
  retryAfterMs?: number;
  /** The provider's HTTP error status, when the request failed with one (a recording keeps it). */
  httpStatus?: number;
  /**
   * Set when a retry cannot succeed (a 400 the provider will refuse again, a replay cassette
   * with no turn left): the engine should stop instead of retrying.
   */
  permanent?: boolean;
  usage: TokenCounts;
}

export interface ModelInfo {
  provider: string;
  modelId: string;
  contextWindow?: number;
  /** Whether the model reads images (selects read_image vs describe_image). */
  vision: boolean;
}

/**
 * A provider adapter: streams partials (start/delta/stop) and complete messages for one request,
 * then returns the outcome. Never throws, never retries.
 */
export interface ModelAdapter {
  readonly info: ModelInfo;
  stream(request: ModelRequest): AsyncGenerator<OmniMessage, ModelOutcome>;
}
