import type { LimitReachedPayload, TokenCounts, ToolSpec } from "@penguin/protocol";
import type { ModelPrices } from "@penguin/state";
import { estimateRequestTokens } from "../models/usage.js";
import type { ModelMessage } from "./types.js";

/**
 * The least room a reply gets: a request's max_tokens is never clamped below it (unless the
 * configured max_tokens is smaller), so the task stops before a request would leave less.
 */
export const MIN_REPLY_TOKENS = 1_024;

export type { ModelPrices };

/** Optional per-session limits; crossing one ends the task with `limit_reached`. */
export interface SessionBudget {
  /** Tokens (input + output, `total` of the session's token counts). */
  maxTokens?: number;
  /** US dollars, from the model's prices (ignored when they are unknown). */
  maxCostUsd?: number;
  /** Milliseconds of running tasks (idle time between runs does not count). */
  maxWallMs?: number;
}

/**
 * "estimate tokens: chars/4 of the request", except that an image counts
 * `ESTIMATED_IMAGE_TOKENS` (providers bill its pixels, not its base64).
 */
export function estimateContextTokens(
  systemPrompt: string,
  messages: readonly ModelMessage[],
  tools: readonly ToolSpec[],
): number {
  return estimateRequestTokens({ systemPrompt, messages: [...messages], tools: [...tools] });
}

/** The smallest reply a request asks for: `MIN_REPLY_TOKENS`, or a smaller configured max_tokens. */
export function minReplyTokens(maxOutputTokens: number | undefined): number {
  return maxOutputTokens !== undefined && maxOutputTokens > 0
    ? Math.min(MIN_REPLY_TOKENS, maxOutputTokens)
    : MIN_REPLY_TOKENS;
}

/**
 * A request's max_tokens, from `model.max_tokens` ("-1 = provider default", so any value of 0
 * or less sends no cap: undefined) and the context window: "already clamped to what the context
 * window leaves" after the estimated input, but never below the least reply
 * (`minReplyTokens`), which the window check before the request made sure fits. An unknown
 * window leaves the configured cap as it is.
 */
export function clampMaxTokens(
  configured: number | undefined,
  contextWindow: number | undefined,
  estimatedInputTokens: number,
): number | undefined {
  if (configured === undefined || configured <= 0) return undefined;
  if (contextWindow === undefined) return configured;
  return Math.max(minReplyTokens(configured), Math.min(configured, contextWindow - estimatedInputTokens));
}

/** Whether a request of `estimate` tokens leaves the window too little room for the least reply. */
export function exceedsContextWindow(estimate: number, window: number, replyTokens: number): boolean {
  return estimate + replyTokens > window;
}

/** US dollars for one request; the cache buckets cost the input price unless priced on their own. */
export function requestCostUsd(usage: TokenCounts, prices: ModelPrices): number {
  const cacheRead = usage.cache_read;
  const cacheWrite = usage.cache_write;
  const uncachedInput = Math.max(0, usage.total - usage.output - cacheRead - cacheWrite);
  const dollars =
    uncachedInput * prices.input_per_mtok +
    cacheRead * (prices.cache_read_per_mtok ?? prices.input_per_mtok) +
    cacheWrite * (prices.cache_write_per_mtok ?? prices.input_per_mtok) +
    usage.output * prices.output_per_mtok;
  return dollars / 1_000_000;
}

/** A `limit_reached` event's fields. */
export interface LimitHit {
  limit: LimitReachedPayload["limit"];
  max: number;
  used: number;
  message: string;
}

/** The first budget limit that `used` has reached, if any. */
export function budgetHit(
  budget: SessionBudget | undefined,
  used: { tokens: number; costUsd?: number; wallMs: number },
): LimitHit | undefined {
  if (!budget) return undefined;
  if (budget.maxTokens !== undefined && used.tokens >= budget.maxTokens) {
    return {
      limit: "tokens",
      max: budget.maxTokens,
      used: used.tokens,
      message: `token budget reached: ${used.tokens} of ${budget.maxTokens} tokens used; stopping`,
    };
  }
  if (budget.maxCostUsd !== undefined && used.costUsd !== undefined && used.costUsd >= budget.maxCostUsd) {
    return {
      limit: "cost",
      max: budget.maxCostUsd,
      used: used.costUsd,
      message: `cost budget reached: $${used.costUsd.toFixed(4)} of $${budget.maxCostUsd} spent; stopping`,
    };
  }
  if (budget.maxWallMs !== undefined && used.wallMs >= budget.maxWallMs) {
    return wallTimeHit(budget.maxWallMs, used.wallMs);
  }
  return undefined;
}

export function wallTimeHit(maxWallMs: number, usedMs: number): LimitHit {
  const used = Math.round(usedMs);
  return {
    limit: "wall_time",
    max: maxWallMs,
    used,
    message: `time budget reached: ${used} ms of ${maxWallMs} ms used; stopping`,
  };
}

export function maxTurnsHit(maxTurns: number): LimitHit {
  return {
    limit: "max_turns",
    max: maxTurns,
    used: maxTurns,
    message: `reached max turns (${maxTurns}); stopping`,
  };
}

export function contextWindowHit(estimate: number, window: number, replyTokens: number): LimitHit {
  return {
    limit: "context_window",
    max: window,
    used: estimate,
    message: `the next request (about ${estimate} tokens) would not leave room for a reply of ${replyTokens} tokens in the model's context window of ${window} tokens; stopping. Start a new session or shorten the conversation.`,
  };
}
