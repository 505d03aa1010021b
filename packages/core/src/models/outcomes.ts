import { emptyTokenCounts, errorMessage, type StopReason, type TokenCounts } from "@penguin/protocol";
import { providerEnvPrefix } from "@penguin/state";
import { connectionFailureKind, innermostMessage } from "./connection-failure.js";
import { SdkLoadError } from "./sdk-client.js";
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

/**
 * The names of an error's classes, most derived first, and its own `name`. The OpenAI and
 * Anthropic SDKs share their error hierarchy's class names (`APIError` and its subclasses), and
 * Anthropic also sets `name` to them, so an error is classified by name and shape: classifying
 * never needs an SDK loaded (they are imported only when a request is sent).
 */
function errorClassNames(error: object): Set<string> {
  const names = new Set<string>();
  const own = (error as { name?: unknown }).name;
  if (typeof own === "string") names.add(own);
  let proto: unknown = Object.getPrototypeOf(error);
  while (typeof proto === "object" && proto !== null && proto !== Object.prototype) {
    const errorClass = (proto as { constructor?: unknown }).constructor;
    if (typeof errorClass === "function" && errorClass.name !== "") names.add(errorClass.name);
    proto = Object.getPrototypeOf(proto);
  }
  return names;
}

/** What an SDK's `APIError` carries: the HTTP status and headers when the server answered. */
interface SdkApiErrorShape {
  status?: unknown;
  headers?: unknown;
  error?: unknown;
}

function headersOf(value: unknown): Headers | undefined {
  return typeof value === "object" && value !== null && typeof (value as Headers).get === "function"
    ? (value as Headers)
    : undefined;
}

/** Where an adapter sends its requests, for messages that tell the user what to check. */
export interface ProviderEndpoint {
  provider: string;
  baseUrl: string;
}

/** The system error code under a fetch failure (`ECONNREFUSED`, `ENOTFOUND`…), if there is one. */
function systemCodeOf(error: unknown): string | undefined {
  for (let cause = error, depth = 0; cause && depth < 4; depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === "string" && /^E[A-Z]+$/.test(code)) return code;
    cause = (cause as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * "cannot reach the provider": with the address and the setting to check, since the usual cause
 * is a local server that is not running or a base URL with a typo, not a network blip.
 */
function connectionFailure(error: unknown, endpoint: ProviderEndpoint | undefined): FailureOutcome {
  if (connectionFailureKind(error) === "dropped") return droppedConnection(error, endpoint);
  const cause = (error as { cause?: unknown }).cause;
  const detail = cause instanceof Error ? `: ${cause.message}` : "";
  const code = systemCodeOf(error);
  if (!endpoint) {
    return outcome("failed", `connection to the provider failed (${errorMessage(error)}${detail})`);
  }
  const setting = `the model's base_url in the project config, or ${providerEnvPrefix(endpoint.provider)}_BASE_URL`;
  return outcome(
    "failed",
    `cannot reach ${endpoint.provider} at ${endpoint.baseUrl}${code ? ` (${code})` : ""}: check that it is running and ${setting} (${errorMessage(error)}${detail})`,
  );
}

/**
 * The server answered and the connection then closed (before the response, or partway through
 * the stream): not a server to go and check, a break that the engine's retry gets past.
 */
function droppedConnection(error: unknown, endpoint: ProviderEndpoint | undefined): FailureOutcome {
  const where = endpoint ? `${endpoint.provider} at ${endpoint.baseUrl}` : "the provider";
  return outcome(
    "failed",
    `the connection to ${where} dropped before the reply was complete (${innermostMessage(error)}): the server answered, then the connection closed`,
  );
}

/** The outcome of an exception thrown by the OpenAI or Anthropic SDK (or by the stream under it). */
export function outcomeOfSdkError(error: unknown, endpoint?: ProviderEndpoint): FailureOutcome {
  if (error instanceof SdkLoadError) return outcome("failed", error.message, { permanent: true });
  if (typeof error !== "object" || error === null) {
    return outcome("failed", `the stream broke off: ${errorMessage(error)}`);
  }
  const names = errorClassNames(error);
  if (names.has("APIUserAbortError")) return outcome("aborted", "the request was aborted");
  if (names.has("APIConnectionTimeoutError")) {
    return outcome("timeout", `the provider did not answer in time (${errorMessage(error)})`);
  }
  if (names.has("APIConnectionError")) return connectionFailure(error, endpoint);
  const shape = error as SdkApiErrorShape;
  if (names.has("APIError") || (typeof shape.status === "number" && headersOf(shape.headers))) {
    if (typeof shape.status === "number") {
      const body = shape.error as { error?: { message?: unknown }; message?: unknown } | undefined;
      const detail = body?.error?.message ?? body?.message;
      const message = typeof detail === "string" ? detail : errorMessage(error);
      return outcomeOfStatus(shape.status, message, retryAfterMsOf(headersOf(shape.headers)));
    }
    // An error event inside the stream (e.g. Anthropic's `overloaded_error`): transient.
    return outcome("failed", `the provider reported an error mid-stream: ${errorMessage(error)}`);
  }
  if (error instanceof SyntaxError) {
    return outcome("malformed", `the provider sent a malformed stream chunk (${errorMessage(error)})`);
  }
  if (connectionFailureKind(error) === "dropped") return droppedConnection(error, endpoint);
  return outcome("failed", `the stream broke off: ${errorMessage(error)}`);
}
