/** Secrets shorter than this are masked whole: their last characters would give too much away. */
export const MASK_MIN_LENGTH = 12;
/** Characters of a longer secret kept at its end, so a user can tell two keys apart. */
export const MASK_VISIBLE_CHARS = 4;

/** "A key is never printed back: mask it." `sk-test-0123456789abcdef` -> `****cdef`. */
export function maskSecret(value: string): string {
  if (value.length < MASK_MIN_LENGTH) return "****";
  return `****${value.slice(-MASK_VISIBLE_CHARS)}`;
}

/** Names of headers and environment variables whose values are secrets (MCP server settings). */
const SECRET_NAME = /key|token|secret|password|passwd|auth|credential|cookie/i;

/** A copy of a name -> value map with the values of secret-looking names masked. */
export function maskSecretEntries(entries: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(entries).map(([name, value]) => [
      name,
      SECRET_NAME.test(name) ? maskSecret(value) : value,
    ]),
  );
}
