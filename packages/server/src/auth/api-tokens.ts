import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { ServerDatabase } from "../db/schema.js";
import { TOKEN_LAST_USED_RESOLUTION_MS } from "../limits.js";
import { API_TOKEN_PREFIX, generateSecret, hashSecret } from "./tokens.js";
import { JOINED_USER_COLUMNS, toUser, type User } from "./users.js";

/** An API token as listed: never the token itself. */
export interface ApiTokenInfo {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
}

/** Creates a bearer token for `userId`; the returned `token` is the only copy that will ever exist. */
export async function createApiToken(
  db: Kysely<ServerDatabase>,
  userId: string,
  name: string,
  now: Date,
  expiresAt?: Date,
): Promise<ApiTokenInfo & { token: string }> {
  const token = generateSecret(API_TOKEN_PREFIX);
  const row = {
    id: randomUUID(),
    user_id: userId,
    name,
    token_hash: hashSecret(token),
    created_at: now.toISOString(),
    last_used_at: null,
    expires_at: expiresAt ? expiresAt.toISOString() : null,
  };
  await db.insertInto("api_tokens").values(row).execute();
  const { id, created_at, expires_at } = row;
  return { id, name, created_at, last_used_at: null, expires_at, token };
}

export async function listApiTokens(db: Kysely<ServerDatabase>, userId: string): Promise<ApiTokenInfo[]> {
  return db
    .selectFrom("api_tokens")
    .select(["id", "name", "created_at", "last_used_at", "expires_at"])
    .where("user_id", "=", userId)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
}

/** Deletes a token of `userId`; false when no such token belongs to that user. */
export async function deleteApiToken(
  db: Kysely<ServerDatabase>,
  userId: string,
  tokenId: string,
): Promise<boolean> {
  const result = await db
    .deleteFrom("api_tokens")
    .where("id", "=", tokenId)
    .where("user_id", "=", userId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Deletes every token of `userId` (on a password change); the number deleted. */
export async function deleteAllApiTokens(db: Kysely<ServerDatabase>, userId: string): Promise<number> {
  const result = await db.deleteFrom("api_tokens").where("user_id", "=", userId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Whether an API token with this id still stands: not revoked, not expired, its user not disabled. */
export async function apiTokenExists(
  db: Kysely<ServerDatabase>,
  tokenId: string,
  now: Date,
): Promise<boolean> {
  const row = await db
    .selectFrom("api_tokens")
    .innerJoin("users", "users.id", "api_tokens.user_id")
    .select("api_tokens.expires_at")
    .where("api_tokens.id", "=", tokenId)
    .where("users.disabled_at", "is", null)
    .executeTakeFirst();
  return row !== undefined && !isExpired(row.expires_at, now);
}

function isExpired(expiresAt: string | null, now: Date): boolean {
  return expiresAt !== null && expiresAt <= now.toISOString();
}

/** The user a bearer token belongs to and the token's id, recording (coarsely) when the token was last used. */
export async function findApiTokenUser(
  db: Kysely<ServerDatabase>,
  token: string,
  now: Date,
): Promise<{ user: User; tokenId: string } | undefined> {
  const row = await db
    .selectFrom("api_tokens")
    .innerJoin("users", "users.id", "api_tokens.user_id")
    .select([
      ...JOINED_USER_COLUMNS,
      "api_tokens.id as token_id",
      "api_tokens.last_used_at",
      "api_tokens.expires_at",
    ])
    .where("api_tokens.token_hash", "=", hashSecret(token))
    .where("users.disabled_at", "is", null)
    .executeTakeFirst();
  if (!row || isExpired(row.expires_at, now)) return undefined;
  const lastUsed = row.last_used_at ? Date.parse(row.last_used_at) : Number.NEGATIVE_INFINITY;
  if (now.getTime() - lastUsed >= TOKEN_LAST_USED_RESOLUTION_MS) {
    await db
      .updateTable("api_tokens")
      .set({ last_used_at: now.toISOString() })
      .where("id", "=", row.token_id)
      .execute();
  }
  return { user: toUser(row), tokenId: row.token_id };
}
