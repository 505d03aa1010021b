import type { Kysely } from "kysely";
import type { ServerDatabase } from "../db/schema.js";
import { AUTH_SESSION_TTL_MS } from "../limits.js";
import { generateSecret, hashSecret } from "./tokens.js";
import { JOINED_USER_COLUMNS, toUser, type User } from "./users.js";

export interface NewAuthSession {
  /** The cookie value; only its hash is stored. */
  token: string;
  /** The row id (the token's hash). */
  id: string;
  expiresAt: Date;
}

/** Starts a browser session for `userId` and drops the sessions that have expired meanwhile. */
export async function createAuthSession(
  db: Kysely<ServerDatabase>,
  userId: string,
  now: Date,
  ttlMs: number = AUTH_SESSION_TTL_MS,
): Promise<NewAuthSession> {
  const token = generateSecret();
  const id = hashSecret(token);
  const expiresAt = new Date(now.getTime() + ttlMs);
  await db.deleteFrom("auth_sessions").where("expires_at", "<=", now.toISOString()).execute();
  await db
    .insertInto("auth_sessions")
    .values({ id, user_id: userId, created_at: now.toISOString(), expires_at: expiresAt.toISOString() })
    .execute();
  return { token, id, expiresAt };
}

/** The user of an unexpired cookie session, or undefined for an unknown or expired token. */
export async function findAuthSessionUser(
  db: Kysely<ServerDatabase>,
  token: string,
  now: Date,
): Promise<{ user: User; sessionId: string; expiresAt: string } | undefined> {
  const id = hashSecret(token);
  const row = await db
    .selectFrom("auth_sessions")
    .innerJoin("users", "users.id", "auth_sessions.user_id")
    .select([...JOINED_USER_COLUMNS, "auth_sessions.expires_at"])
    .where("auth_sessions.id", "=", id)
    .where("users.disabled_at", "is", null)
    .executeTakeFirst();
  if (!row || row.expires_at <= now.toISOString()) return undefined;
  return { user: toUser(row), sessionId: id, expiresAt: row.expires_at };
}

/** Whether the browser session with this row id still exists and has not expired. */
export async function authSessionIsLive(
  db: Kysely<ServerDatabase>,
  sessionId: string,
  now: Date,
): Promise<boolean> {
  const row = await db
    .selectFrom("auth_sessions")
    .select("expires_at")
    .where("id", "=", sessionId)
    .executeTakeFirst();
  return row !== undefined && row.expires_at > now.toISOString();
}

export async function deleteAuthSession(db: Kysely<ServerDatabase>, sessionId: string): Promise<void> {
  await db.deleteFrom("auth_sessions").where("id", "=", sessionId).execute();
}

/** Ends every browser session of a user except `keepId` (used when the password changes). */
export async function deleteOtherAuthSessions(
  db: Kysely<ServerDatabase>,
  userId: string,
  keepId: string | undefined,
): Promise<void> {
  let query = db.deleteFrom("auth_sessions").where("user_id", "=", userId);
  if (keepId !== undefined) query = query.where("id", "!=", keepId);
  await query.execute();
}
