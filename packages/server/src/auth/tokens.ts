import { createHash, randomBytes } from "node:crypto";

/** Bearer tokens start with this, so a leaked one is easy to recognise (and to scan for). */
export const API_TOKEN_PREFIX = "pgn_";
const TOKEN_BYTES = 32;

/** A random secret for a cookie session or an API token: 256 bits, base64url. */
export function generateSecret(prefix = ""): string {
  return `${prefix}${randomBytes(TOKEN_BYTES).toString("base64url")}`;
}

/**
 * The stored form of a cookie or bearer token: SHA-256, hex. A fast hash is enough here (unlike
 * passwords) because the token has 256 random bits; a database leak reveals no usable token.
 */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}
