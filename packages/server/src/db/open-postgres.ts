import { Kysely, PostgresDialect, sql } from "kysely";
import { POSTGRES_CONNECT_TIMEOUT_MS, POSTGRES_IDLE_TIMEOUT_MS, POSTGRES_POOL_SIZE } from "../limits.js";
import { DatabaseOpenError, type DatabaseTarget } from "./database-target.js";
import type { ServerDatabase } from "./schema.js";

export interface OpenPostgresOptions {
  /**
   * Called when a pooled connection that sits idle fails (the database restarted, a proxy cut
   * it): the pool drops it and opens a new one on the next query. Without a listener the driver
   * would end the process.
   */
  onIdleError?: (error: Error) => void;
}

/**
 * Opens a pool of connections to PostgreSQL through Kysely and checks at once that one connects,
 * so a wrong host, password or database name stops the start with a DatabaseOpenError instead of
 * failing the first request. The driver (`pg`) is imported here, on demand: a server on SQLite
 * never loads it.
 *
 * Close with `db.destroy()` (it ends the pool).
 */
export async function openPostgres(
  target: Extract<DatabaseTarget, { kind: "postgres" }>,
  options: OpenPostgresOptions = {},
): Promise<Kysely<ServerDatabase>> {
  const { default: pg } = await import("pg");
  const pool = new pg.Pool({
    connectionString: target.url,
    max: POSTGRES_POOL_SIZE,
    connectionTimeoutMillis: POSTGRES_CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: POSTGRES_IDLE_TIMEOUT_MS,
  });
  pool.on("error", (error) => options.onIdleError?.(error));
  const db = new Kysely<ServerDatabase>({ dialect: new PostgresDialect({ pool }) });
  try {
    await sql`select 1`.execute(db);
  } catch (error) {
    await db.destroy().catch(() => undefined);
    throw new DatabaseOpenError(target, error);
  }
  return db;
}
