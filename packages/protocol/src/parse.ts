import type { z } from "zod";
import { envelopeSchemas, type OmniMessage } from "./envelope.js";
import { isEnvelope } from "./envelope-check.generated.js";

/** Why a value is not a valid envelope: the path of the first bad field and what is wrong. */
export interface EnvelopeError {
  /** Dotted path of the first bad field, e.g. `payload.tool_call_id`; "" for the whole value. */
  path: string;
  message: string;
}

/**
 * `value` is typed as `OmniMessage` (one envelope type per payload kind), which narrows on
 * `value.payload.type`; fields the schemas do not list are still present at runtime.
 */
export type ParseResult = { ok: true; value: OmniMessage } | { ok: false; error: EnvelopeError };

function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out;
}

function firstIssue(error: z.ZodError): EnvelopeError {
  // A discriminated union reports an unknown discriminator on the discriminator itself;
  // nested union failures carry their own issues, of which the first is the most specific.
  let issue = error.issues[0];
  while (issue && issue.code === "invalid_union" && issue.errors.length > 0 && issue.errors[0].length > 0) {
    const inner = issue.errors[0][0];
    issue = { ...inner, path: [...issue.path, ...inner.path] };
  }
  if (!issue) return { path: "", message: "invalid envelope" };
  return { path: formatPath(issue.path), message: issue.message };
}

/**
 * How many envelopes a process checks before zod compiles the schema's fast path. The compile
 * costs some 12 ms (the first dozen records of a session, measured with a 20-round run's trace)
 * and saves some 0.035 ms a record after it: a short run never earns it back, a long one pays it
 * once, after its first records instead of on the way to its first model request. The checks
 * are the same either way.
 */
export const ENVELOPE_CHECKS_BEFORE_COMPILE = 256;
let envelopesChecked = 0;

/** Validates an already parsed value as an envelope. Never throws. */
export function parseEnvelope(value: unknown): ParseResult {
  const jitless = envelopesChecked < ENVELOPE_CHECKS_BEFORE_COMPILE;
  if (jitless) envelopesChecked += 1;
  const result = envelopeSchemas().OmniMessageSchema.safeParse(
    value,
    jitless ? { jitless: true } : undefined,
  );
  // The schema has checked the value; the cast only spreads the union per payload kind.
  if (result.success) return { ok: true, value: result.data as OmniMessage };
  return { ok: false, error: firstIssue(result.error) };
}

/**
 * Parses one JSON line (a trace line, an SSE data field) into an envelope. Never throws. A line
 * whose value zod would return unchanged (every line a current writer wrote) is recognised by the
 * precompiled check (scripts/gen-envelope-check.ts) and returned as parsed, so reading a trace
 * builds no schema; zod parses the rest (an older line it fills defaults in, a broken one it
 * explains).
 */
export function parseEnvelopeLine(line: string): ParseResult {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    return { ok: false, error: { path: "", message: `not valid JSON: ${(err as Error).message}` } };
  }
  // The value is this function's own (fresh from JSON.parse), so no caller shares it.
  if (isEnvelope(value)) return { ok: true, value: value as OmniMessage };
  return parseEnvelope(value);
}

/**
 * Why a value is not a valid envelope, or undefined when it is one: what a writer asks of every
 * record before it stores it. A valid value is recognised by the precompiled check of the JSON
 * Schema of zod's output (scripts/gen-envelope-check.ts), four to five times cheaper than zod's walk
 * of a session's first few hundred records; anything it refuses goes to zod, which is the
 * authority and explains the refusal. Tests hold the check to accepting only what zod returns
 * unchanged.
 */
export function envelopeError(value: unknown): EnvelopeError | undefined {
  if (isEnvelope(value)) return undefined;
  const parsed = parseEnvelope(value);
  return parsed.ok ? undefined : parsed.error;
}
