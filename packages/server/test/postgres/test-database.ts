import { createHash } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";
import { ADMIN_URL_KEY } from "./provided.js";

/**
 * Which database the test servers use: the `sqlite` project (default) gives each its data
 * root's SQLite file, the `postgres` project (PENGUIN_TEST_DATABASE=postgres) a database of its
 * own on the run's PostgreSQL.
 */
export const TEST_DATABASE: "sqlite" | "postgres" =
  process.env.PENGUIN_TEST_DATABASE === "postgres" ? "postgres" : "sqlite";

/** One database per data root, so a server restarted on the same root finds its data again. */
function databaseNameFor(dataRoot: string): string {
  return `penguin_test_${createHash("sha256").update(dataRoot).digest("hex").slice(0, 24)}`;
}

function urlOf(database: string): string {
  const url = new URL(inject(ADMIN_URL_KEY));
  url.pathname = `/${database}`;
  return url.href;
}

async function asAdmin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: inject(ADMIN_URL_KEY) });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * Creates the PostgreSQL database of `dataRoot` (empty) and returns its URL and a function that
 * drops it, ending whatever connection a killed server left open.
 */
export async function createTestPostgres(
  dataRoot: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = databaseNameFor(dataRoot);
  await asAdmin(`create database "${name}"`);
  return { url: urlOf(name), drop: () => asAdmin(`drop database if exists "${name}" with (force)`) };
}

/** The URL of the run's PostgreSQL with another password, for the tests of a refused login. */
export function testPostgresUrlWithPassword(password: string): string {
  const url = new URL(inject(ADMIN_URL_KEY));
  url.password = password;
  return url.href;
}

/** The run's PostgreSQL URL with the password shown, for the tests that check it never leaks. */
export function testPostgresAdminUrl(): string {
  return inject(ADMIN_URL_KEY);
}
