import type { ModelOutcome } from "../models/types.js";

/** "failed, timeout and malformed outcomes are retried … up to 5 with backoff 2s·2^(n−1) capped at 30s". */
export const MAX_REQUEST_RETRIES = 5;
export const RETRY_BASE_DELAY_MS = 2_000;
export const RETRY_MAX_DELAY_MS = 30_000;
/** A provider's `retry-after` is honoured up to this long; a longer wait is not worth holding a task for. */
export const RETRY_AFTER_CAP_MS = 5 * 60_000;

export interface RetryPolicy {
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: MAX_REQUEST_RETRIES,
  baseDelayMs: RETRY_BASE_DELAY_MS,
  maxDelayMs: RETRY_MAX_DELAY_MS,
};

/**
 * How long to wait before retrying after `attempt` (1-based) ended with `outcome`, or undefined
 * when it is not retried: `auth` and permanent failures stop at once, and so does a request that
 * has used up its retries. The provider's `retry-after` wins over the backoff.
 */
export function retryDelay(outcome: ModelOutcome, attempt: number, policy: RetryPolicy): number | undefined {
  if (outcome.status !== "failed" && outcome.status !== "timeout" && outcome.status !== "malformed")
    return undefined;
  if (outcome.permanent) return undefined;
  if (attempt > policy.maxRetries) return undefined;
  if (outcome.retryAfterMs !== undefined)
    return Math.min(Math.max(0, Math.round(outcome.retryAfterMs)), RETRY_AFTER_CAP_MS);
  return Math.min(policy.baseDelayMs * 2 ** (attempt - 1), policy.maxDelayMs);
}
