import { TraceError } from "./errors.js";

/**
 * A session id becomes one path segment (`<id>_001.jsonl`, `scratchpad/<id>/`): letters, digits,
 * `-` and `_`, starting with a letter or digit, at most 128 characters. No dots and no separators,
 * so an id can never climb out of its folder (`..`, `a/../../x`, `C:\x`) or name a hidden file.
 * The same rule as `@penguin/state`'s `isValidSessionId`, restated here because trace must not
 * depend on state.
 */
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

export function isValidSessionId(id: unknown): id is string {
  return typeof id === "string" && SESSION_ID.test(id);
}

/** Throws a `TraceError("invalid_session_id")` that quotes the id and states the rule. */
export function assertSessionId(id: unknown): asserts id is string {
  if (!isValidSessionId(id)) {
    throw new TraceError(
      "invalid_session_id",
      `invalid session id ${JSON.stringify(id)}: use 1-128 letters, digits, '-' or '_', starting with a letter or digit`,
    );
  }
}
