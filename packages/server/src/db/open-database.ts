import type { Kysely } from "kysely";
import { DatabaseOpenError, type DatabaseTarget, parseDatabaseTarget } from "./database-target.js";
import { type OpenPostgresOptions, openPostgres } from "./open-postgres.js";
import { type OpenSqliteOptions, openSqlite } from "./open-sqlite.js";
import type { ServerDatabase } from "./schema.js";

export interface OpenDatabaseOptions extends OpenSqliteOptions, OpenPostgresOptions {}

/**
 * Opens the server's database: a SQLite file or a PostgreSQL database, one schema and one set
 * of queries for both (Kysely). A string is read as `--database` is (see parseDatabaseTarget).
 * Whatever stops the opening (a folder that cannot be created, a file that is no database, a
 * server that refuses) is a DatabaseOpenError with one line naming the target, password redacted.
 *
 * Close with `db.destroy()`.
 */
export async function openDatabase(
  target: DatabaseTarget | string,
  options: OpenDatabaseOptions = {},
): Promise<Kysely<ServerDatabase>> {
  const resolved = typeof target === "string" ? parseDatabaseTarget(target) : target;
  if (resolved.kind === "postgres") return openPostgres(resolved, options);
  try {
    return await openSqlite(resolved.file, options);
  } catch (error) {
    throw new DatabaseOpenError(resolved, error);
  }
}
