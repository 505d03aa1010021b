import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { ServerDatabase, UserRole, UserRow } from "../db/schema.js";
import { hashPassword } from "./password.js";

/** The columns of the users table that make a `User` (see `toUser`), for queries that join it. */
export const JOINED_USER_COLUMNS = [
  "users.id",
  "users.username",
  "users.role",
  "users.must_change_password",
  "users.created_at",
  "users.last_login_at",
  "users.disabled_at",
] as const;

type UserColumns =
  | "id"
  | "username"
  | "role"
  | "must_change_password"
  | "created_at"
  | "last_login_at"
  | "disabled_at";

/** What the API shows of a user: never the password hash. */
export interface User {
  id: string;
  username: string;
  role: UserRole;
  must_change_password: boolean;
  created_at: string;
  last_login_at: string | null;
  disabled: boolean;
}

export function toUser(row: Pick<UserRow, UserColumns>): User {
  return {
    id: row.id,
    username: row.username,
    role: row.role,
    must_change_password: row.must_change_password === 1,
    created_at: row.created_at,
    last_login_at: row.last_login_at,
    disabled: row.disabled_at !== null,
  };
}

/** Usernames compare case-insensitively: "Alice" and "alice" are one user. */
export function normalizeUsername(username: string): string {
  return username.trim().toLowerCase();
}

export interface NewUser {
  username: string;
  password: string;
  role: UserRole;
  mustChangePassword: boolean;
  now: Date;
}

/** Inserts a user; fails (UNIQUE constraint) when the username is taken. */
export async function createUser(db: Kysely<ServerDatabase>, input: NewUser): Promise<User> {
  const row: UserRow = {
    id: randomUUID(),
    username: normalizeUsername(input.username),
    password_hash: await hashPassword(input.password),
    role: input.role,
    must_change_password: input.mustChangePassword ? 1 : 0,
    created_at: input.now.toISOString(),
    last_login_at: null,
    disabled_at: null,
  };
  await db.insertInto("users").values(row).execute();
  return toUser(row);
}

export async function findUserRowByUsername(
  db: Kysely<ServerDatabase>,
  username: string,
): Promise<UserRow | undefined> {
  return db
    .selectFrom("users")
    .selectAll()
    .where("username", "=", normalizeUsername(username))
    .executeTakeFirst();
}

export async function findUserRowById(db: Kysely<ServerDatabase>, id: string): Promise<UserRow | undefined> {
  return db.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst();
}

export async function listUsers(db: Kysely<ServerDatabase>): Promise<User[]> {
  const rows = await db
    .selectFrom("users")
    .select(["id", "username", "role", "must_change_password", "created_at", "last_login_at", "disabled_at"])
    .orderBy("created_at")
    .orderBy("username")
    .execute();
  return rows.map(toUser);
}

/** Stores a new password hash and records whether the user must still choose their own. */
export async function setUserPassword(
  db: Kysely<ServerDatabase>,
  userId: string,
  password: string,
  mustChangePassword: boolean,
): Promise<void> {
  await db
    .updateTable("users")
    .set({ password_hash: await hashPassword(password), must_change_password: mustChangePassword ? 1 : 0 })
    .where("id", "=", userId)
    .execute();
}

/** Records a successful login. */
export async function recordLogin(db: Kysely<ServerDatabase>, userId: string, now: Date): Promise<void> {
  await db.updateTable("users").set({ last_login_at: now.toISOString() }).where("id", "=", userId).execute();
}

/** Disables (with the instant) or enables a user; false when there is no such user. */
export async function setUserDisabled(
  db: Kysely<ServerDatabase>,
  userId: string,
  disabledAt: Date | undefined,
): Promise<boolean> {
  const result = await db
    .updateTable("users")
    .set({ disabled_at: disabledAt ? disabledAt.toISOString() : null })
    .where("id", "=", userId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
