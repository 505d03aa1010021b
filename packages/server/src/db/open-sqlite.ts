import { chmod, open } from "node:fs/promises";
import { dirname, join } from "node:path";
import { ensurePrivateDir, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from "@penguin/state";
import Database from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { SQLITE_BUSY_TIMEOUT_MS } from "../limits.js";
import type { ServerDatabase } from "./schema.js";

export const SERVER_DIR_NAME = "server";
export const DATABASE_FILE_NAME = "penguin.db";

/** `<data root>/server/penguin.db`: the server's SQLite index, used unless a database is given. */
export function serverDatabaseFile(dataRoot: string): string {
  return join(dataRoot, SERVER_DIR_NAME, DATABASE_FILE_NAME);
}

export interface OpenSqliteOptions {
  /** Milliseconds to wait for another connection's lock; default SQLITE_BUSY_TIMEOUT_MS. */
  busyTimeoutMs?: number;
  /**
   * Whether the file's folder is the server's own, to be made 0700 even when it exists wider
   * (default true: `<data root>/server`). False for a file the operator named: a folder that
   * does not exist is still created 0700, but an existing one (their working folder, say) keeps
   * its mode.
   */
  ownFolder?: boolean;
}

/**
 * Opens (creating if needed) the SQLite file through Kysely. The folder is 0700 and the file
 * 0600 — it holds password hashes — and SQLite creates its `-wal` and `-shm` files with the
 * database file's mode. WAL lets readers run while one writer writes; foreign keys are off by
 * default in SQLite and turned on here so cascades behave as on PostgreSQL.
 *
 * Close with `db.destroy()`.
 */
export async function openSqlite(
  file: string,
  options: OpenSqliteOptions = {},
): Promise<Kysely<ServerDatabase>> {
  const dir = dirname(file);
  await ensurePrivateDir(dir);
  // The server owns this folder: tighten it even when someone created it wider.
  if (process.platform !== "win32" && options.ownFolder !== false) await chmod(dir, PRIVATE_DIR_MODE);
  // Create the file ourselves so it never exists with the umask's mode, not even briefly.
  const handle = await open(file, "a", PRIVATE_FILE_MODE);
  await handle.close();
  if (process.platform !== "win32") await chmod(file, PRIVATE_FILE_MODE);

  const sqlite = new Database(file, { timeout: options.busyTimeoutMs ?? SQLITE_BUSY_TIMEOUT_MS });
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("foreign_keys = ON");
  // NORMAL is durable across application crashes in WAL mode and much faster than FULL.
  sqlite.pragma("synchronous = NORMAL");
  return new Kysely<ServerDatabase>({ dialect: new SqliteDialect({ database: sqlite }) });
}
