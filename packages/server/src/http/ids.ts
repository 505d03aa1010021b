import { z } from "zod";

/**
 * Ids that travel in URL paths: letters, digits, `-` and `_`, starting with a letter or digit, at
 * most 128 characters (the rule of `@penguin/state` for session ids). No dots, slashes or
 * percent signs, so `..`, `a/../../x` or `..%2F` are rejected with 400 before any handler sees
 * them and can never name a file outside the folder it belongs in.
 */
export const SAFE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

export const SafeIdSchema = z
  .string()
  .regex(SAFE_ID_PATTERN, "use 1-128 letters, digits, '-' or '_', starting with a letter or digit");

/** A Penguin session id in a path. */
export const SessionIdSchema = SafeIdSchema.describe("A Penguin session id");

/** `{ id }` path parameters. */
export const IdParamsSchema = z.object({ id: SafeIdSchema });
