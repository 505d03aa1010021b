import { randomBytes } from "node:crypto";

const ID_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
/** Random characters after the time: 36^6 ≈ 2·10^9 ids per second before a collision is likely. */
export const SESSION_ID_RANDOM_CHARS = 6;

/**
 * A new session id, `YYYYMMDD-HHMMSS-<random6>` in UTC: ids sort by creation time, are unique,
 * and are one safe path segment (valid for `@penguin/trace`).
 */
export function newSessionId(now: Date = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  const day = `${now.getUTCFullYear()}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())}`;
  const time = `${pad(now.getUTCHours())}${pad(now.getUTCMinutes())}${pad(now.getUTCSeconds())}`;
  const bytes = randomBytes(SESSION_ID_RANDOM_CHARS);
  let random = "";
  for (const byte of bytes) random += ID_ALPHABET[byte % ID_ALPHABET.length];
  return `${day}-${time}-${random}`;
}
