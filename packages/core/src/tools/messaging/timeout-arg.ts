/** A `timeout_ms` as a call runs with it: the default when absent, the maximum when larger. */
export type TimeoutArg = { ok: true; ms: number; clamped: boolean } | { ok: false; error: string };

/** Reads `timeout_ms` of `tool` ("a `timeout_ms` argument with a documented default and maximum"). */
export function timeoutArg(value: unknown, tool: string, defaultMs: number, maxMs: number): TimeoutArg {
  if (value === undefined) return { ok: true, ms: defaultMs, clamped: false };
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    return { ok: false, error: `${tool}: timeout_ms must be a whole number of milliseconds, 0 or more.` };
  }
  if (value > maxMs) return { ok: true, ms: maxMs, clamped: true };
  return { ok: true, ms: value, clamped: false };
}
