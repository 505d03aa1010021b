import Anthropic from "@anthropic-ai/sdk";
import { emptyTokenCounts, type StopReason, type TokenCounts } from "@penguin/protocol";
import OpenAI from "openai";
import type { ModelOutcome } from "./types.js";

/** How adapters turn HTTP statuses, SDK errors and broken streams into outcomes (never exceptions). */

export type FailureOutcome = Omit<ModelOutcome, "usage">;

export function withUsage(outcome: FailureOutcome, usage: TokenCounts = emptyTokenCounts()): ModelOutcome {
  return { ...outcome, usage };
}

export function outcome(
  status: StopReason,
  errorMessage: string,
  extra: Partial<FailureOutcome> = {},
): FailureOutcome {
  return { status, errorMessage, ...extra };
}

/**
 * A provider's HTTP error status: 401/403 need a new key (`auth`, never retried); 408 is a
 * timeout; 429, 5xx and 529 (overloaded) are transient (`failed`, retried with the server's
 * `retry-after`); any other 4xx is a request the provider will refuse again (`permanent`).
 */
export function outcomeOfStatus(status: number, message: string, retryAfterMs?: number): FailureOutcome {
  const text = `HTTP ${status}: ${message}`;
  const retry = retryAfterMs === undefined ? { httpStatus: status } : { retryAfterMs, httpStatus: status };
  if (status === 401 || status === 403) return outcome("auth", text, { httpStatus: status });
  if (status === 408) return outcome("timeout", text, retry);
  if (status === 429 || status >= 500) return outcome("failed", text, retry);
  return outcome("failed", text, { permanent: true, httpStatus: status });
}

/** Milliseconds to wait from `retry-after-ms` (OpenAI) or `retry-after` (seconds or an HTTP date). */
export function retryAfterMsOf(headers: Headers | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = Number.parseFloat(headers.get("retry-after-ms") ?? "");
  if (Number.isFinite(ms) && ms >= 0) return Math.round(ms);
  const value = headers.get("retry-after");
  if (value === null || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The outcome of an exception thrown by the OpenAI or Anthropic SDK (or by the stream under it). */
export function outcomeOfSdkError(error: unknown): FailureOutcome {
  if (error instanceof OpenAI.APIUserAbortError || error instanceof Anthropic.APIUserAbortError) {
    return outcome("aborted", "the request was aborted");
  }
  if (
    error instanceof OpenAI.APIConnectionTimeoutError ||
    error instanceof Anthropic.APIConnectionTimeoutError
  ) {
    return outcome("timeout", `the provider did not answer in time (${messageOf(error)})`);
  }
  if (error instanceof OpenAI.APIConnectionError || error instanceof Anthropic.APIConnectionError) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
    return outcome("failed", `connection to the provider failed (${messageOf(error)}${cause})`);
  }
  if (error instanceof OpenAI.APIError || error instanceof Anthropic.APIError) {
    if (typeof error.status === "number") {
      const body = error.error as { error?: { message?: unknown }; message?: unknown } | undefined;
      const detail = body?.error?.message ?? body?.message;
      const message = typeof detail === "string" ? detail : messageOf(error);
      return outcomeOfStatus(error.status, message, retryAfterMsOf(error.headers));
    }
    // An error event inside the stream (e.g. Anthropic's `overloaded_error`): transient.
    return outcome("failed", `the provider reported an error mid-stream: ${messageOf(error)}`);
  }
  if (error instanceof SyntaxError) {
    return outcome("malformed", `the provider sent a malformed stream chunk (${messageOf(error)})`);
  }
  return outcome("failed", `the stream broke off: ${messageOf(error)}`);
}
