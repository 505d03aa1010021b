import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import type { ServerDatabase } from "../db/schema.js";
import { createUser, findUserRowByUsername, setUserPassword } from "./users.js";

/** The user created on first start. */
export const BOOTSTRAP_ADMIN_USERNAME = "admin";

/** The initial admin password to show the operator; present only while it has not been changed. */
export interface InitialAdmin {
  username: string;
  password: string;
  /** True on the very first start, false when an unchanged initial password was renewed. */
  created: boolean;
}

function randomPassword(): string {
  // 144 random bits, 24 characters of base64url: strong, and easy to copy from a terminal.
  return randomBytes(18).toString("base64url");
}

/**
 * "an admin created on first start with a random initial password printed until it is changed".
 *
 * On a database without users this creates `admin` with a random password and
 * `must_change_password`. While that admin has not chosen their own password, every later start
 * gives it a fresh random password and returns it again, so the server never keeps a usable
 * password in plain text anywhere (the hash is all that is stored) and the printed one always
 * works. Returns undefined once the admin has changed it.
 */
export async function ensureBootstrapAdmin(
  db: Kysely<ServerDatabase>,
  now: Date = new Date(),
): Promise<InitialAdmin | undefined> {
  const anyUser = await db.selectFrom("users").select("id").limit(1).executeTakeFirst();
  const password = randomPassword();
  if (!anyUser) {
    try {
      await createUser(db, {
        username: BOOTSTRAP_ADMIN_USERNAME,
        password,
        role: "admin",
        mustChangePassword: true,
        now,
      });
      return { username: BOOTSTRAP_ADMIN_USERNAME, password, created: true };
    } catch (error) {
      // Another server process created it at the same moment: fall through and renew theirs.
      if (!(await findUserRowByUsername(db, BOOTSTRAP_ADMIN_USERNAME))) throw error;
    }
  }
  const admin = await findUserRowByUsername(db, BOOTSTRAP_ADMIN_USERNAME);
  if (admin?.role !== "admin" || admin.must_change_password !== 1) return undefined;
  await setUserPassword(db, admin.id, password, true);
  return { username: BOOTSTRAP_ADMIN_USERNAME, password, created: false };
}

/** The lines the CLI prints to stderr while the initial admin password is unchanged. */
export function formatInitialAdminNotice(admin: InitialAdmin): string {
  return [
    admin.created
      ? "Created the first Penguin server user."
      : "The initial admin password has not been changed yet.",
    `  username: ${admin.username}`,
    `  password: ${admin.password}`,
    "Log in and choose a new password; until then this password changes on every start.",
  ].join("\n");
}
