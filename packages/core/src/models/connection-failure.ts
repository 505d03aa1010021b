import { errorMessage } from "@penguin/protocol";

/**
 * Why a connection to a provider failed: the server was never reached (nothing listens there,
 * the name does not resolve, the network has no route), or it answered and the connection then
 * dropped (a proxy or the server closed it, a reset mid-reply). The first sends the user to
 * check the address; the second is a transient break that a retry usually gets past.
 */
export type ConnectionFailureKind = "unreachable" | "dropped" | "unknown";

/** "cannot reach": errors of a connection that never opened. */
const CODES_OF_A_SERVER_NOT_REACHED = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EHOSTDOWN",
  "EADDRNOTAVAIL",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** Any system error of the `connect` call (a connect that timed out included) is a server not reached. */
const CONNECT_SYSCALL = "connect";

/** "dropped": errors of a connection that was open (the fetch layer's, then the system's). */
const CODES_OF_A_DROPPED_CONNECTION = new Set([
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "ECONNRESET",
  "EPIPE",
  "ECONNABORTED",
]);

/** The message Node's fetch gives a body whose connection closed before its end. */
const BODY_CUT_MESSAGE = "terminated";

/** How deep into `cause` chains to look (SDK error -> fetch error -> socket error). */
const MAX_CAUSE_DEPTH = 5;

export function connectionFailureKind(error: unknown): ConnectionFailureKind {
  let sawCutBody = false;
  for (let cause = error, depth = 0; cause && depth < MAX_CAUSE_DEPTH; depth++) {
    const { code, message, syscall } = cause as { code?: unknown; message?: unknown; syscall?: unknown };
    if (typeof code === "string") {
      if (CODES_OF_A_SERVER_NOT_REACHED.has(code) || syscall === CONNECT_SYSCALL) return "unreachable";
      if (CODES_OF_A_DROPPED_CONNECTION.has(code)) return "dropped";
    }
    if (message === BODY_CUT_MESSAGE) sawCutBody = true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return sawCutBody ? "dropped" : "unknown";
}

/** The innermost message of a cause chain ("other side closed"), for the detail in parentheses. */
export function innermostMessage(error: unknown): string {
  let message = errorMessage(error);
  for (let cause = error, depth = 0; cause && depth < MAX_CAUSE_DEPTH; depth++) {
    if (cause instanceof Error && cause.message) message = cause.message;
    cause = (cause as { cause?: unknown }).cause;
  }
  return message;
}
