/**
 * Argument parsing and the foreground-window arithmetic shared by exec_command and
 * input_command. The Environment validates arguments against the tool's JSON Schema first; these
 * checks still run because a user may edit the schema, and a bad value must come back as a clear
 * message, never as an exception.
 */

import {
  DEFAULT_COMMAND_POLL_YIELD_MS,
  DEFAULT_EXEC_YIELD_MS,
  DEFAULT_WRITE_YIELD_MS,
  MIN_EXEC_YIELD_MS,
} from "@penguin/state";

// The yield defaults are the numbers the tools' descriptions state, defined once with the
// definitions (@penguin/state, tools/command.ts).
export {
  DEFAULT_COMMAND_POLL_YIELD_MS as DEFAULT_POLL_YIELD_MS,
  DEFAULT_EXEC_YIELD_MS,
  DEFAULT_WRITE_YIELD_MS,
  MIN_EXEC_YIELD_MS,
};
/**
 * "capped at timeout −1s": the window ends at least this long before the call's timeout, so the
 * call returns the output so far and a process_id instead of being cut off by the Environment.
 */
export const YIELD_TIMEOUT_MARGIN_MS = 1_000;

/**
 * `"\u0004"` (Ctrl-D) alone closes the command's stdin, so a program reading to end-of-file
 * (`sort`, `cat > file`, `python -`) can finish: with pipes instead of a terminal there is no
 * other way to send EOF. Inside other text it is written as a plain byte.
 */
export const CTRL_D = "\u0004";

/** "send "\u0003" alone to deliver Ctrl-C". Mixed into other text it is written as a plain byte (there is no terminal to turn it into a signal). */
export const CTRL_C = "\u0003";

/**
 * The foreground window: the requested (or default) value, capped below the tool timeout when
 * the timeout is on (`timeoutMs > 0`), then raised to the minimum. When the timeout is so short
 * that the cap falls below the minimum, the minimum wins and the timeout may fire first (a
 * foreground command then moves to the background; see exec-command.ts).
 */
export function clampYieldTime(options: {
  requested: number | undefined;
  fallback: number;
  min: number;
  timeoutMs: number;
}): number {
  let ms = options.requested ?? options.fallback;
  if (options.timeoutMs > 0) ms = Math.min(ms, options.timeoutMs - YIELD_TIMEOUT_MARGIN_MS);
  return Math.max(Math.round(ms), options.min);
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

export function requiredString(args: Record<string, unknown>, key: string): Parsed<string> {
  const value = args[key];
  if (typeof value !== "string" || value.trim().length === 0) {
    return { ok: false, error: `missing argument "${key}": a non-empty string is required` };
  }
  return { ok: true, value };
}

export function optionalString(args: Record<string, unknown>, key: string): Parsed<string | undefined> {
  const value = args[key];
  if (value === undefined || value === null) return { ok: true, value: undefined };
  if (typeof value !== "string")
    return { ok: false, error: `argument "${key}" must be a string, got ${typeof value}` };
  return { ok: true, value };
}

export function optionalMilliseconds(args: Record<string, unknown>, key: string): Parsed<number | undefined> {
  const value = args[key];
  if (value === undefined || value === null) return { ok: true, value: undefined };
  if (typeof value !== "number" || !Number.isFinite(value)) {
    return {
      ok: false,
      error: `argument "${key}" must be a number of milliseconds, got ${JSON.stringify(value)}`,
    };
  }
  return { ok: true, value };
}

/**
 * Whether an abort is the user's interrupt (as opposed to the call's timeout). A timeout is an
 * abort whose reason is `"timeout"`, a `TimeoutError` (as from `AbortSignal.timeout`), an object
 * with `kind`/`type` `"timeout"`, or an Error whose message starts with "timed out" (the
 * Environment's `timed out after N ms`); anything else (reason `"interrupt"`, a bare `abort()`)
 * is treated as the user asking to stop.
 */
export function isUserInterrupt(signal: AbortSignal): boolean {
  const reason: unknown = signal.reason;
  if (reason === "timeout") return false;
  if (reason && typeof reason === "object") {
    const tagged = reason as { name?: unknown; kind?: unknown; type?: unknown; message?: unknown };
    if (tagged.name === "TimeoutError" || tagged.kind === "timeout" || tagged.type === "timeout")
      return false;
    if (typeof tagged.message === "string" && /^timed out\b/i.test(tagged.message)) return false;
  }
  return true;
}
