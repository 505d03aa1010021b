import type { CompactionSettings } from "@penguin/state";
import type { ConversationState } from "../types.js";

/** "unknown window → assume 128000". */
export const ASSUMED_CONTEXT_WINDOW = 128_000;
/** "context_window − 2048": the least room the compaction threshold leaves for a reply. */
export const MIN_COMPACTION_REPLY_MARGIN = 2_048;
/**
 * The reply margin is the model's max_tokens, but never more than this share of the window: with
 * a 32k window and a 32k max_tokens the margin would otherwise leave no context at all.
 */
export const MAX_COMPACTION_REPLY_MARGIN_SHARE = 1 / 8;

export type CompactionReason = "context" | "turns" | "manual";

/**
 * The tokens at which a request triggers a `context` compaction: min(max_context_length,
 * context window − a margin that leaves room for the reply).
 */
export function compactionThreshold(
  maxContextLength: number,
  contextWindow: number | undefined,
  maxOutputTokens: number | undefined,
): number {
  const window = contextWindow ?? ASSUMED_CONTEXT_WINDOW;
  const replyMargin = Math.max(
    MIN_COMPACTION_REPLY_MARGIN,
    Math.min(maxOutputTokens ?? 0, Math.floor(window * MAX_COMPACTION_REPLY_MARGIN_SHARE)),
  );
  return Math.max(1, Math.min(maxContextLength, window - replyMargin));
}

/**
 * Which trigger, if any, asks for a compaction before the next request: `context` when the last
 * request's total tokens reached the threshold, `turns` when the context has run
 * `max_session_turns` turns. A compaction that just failed is not tried again before another
 * turn has run ("on give-up the original context is kept and it retries at next trigger").
 */
export function dueCompaction(
  state: ConversationState,
  settings: CompactionSettings,
  threshold: number,
): CompactionReason | undefined {
  if (state.compactionDeferred) return undefined;
  if (state.lastRequestTotal !== undefined && state.lastRequestTotal >= threshold) return "context";
  const maxTurns = settings.max_session_turns;
  if (maxTurns > 0 && (state.contextTurns ?? 0) >= maxTurns) return "turns";
  return undefined;
}
