import { errorMessage } from "@penguin/protocol";
import { type Kysely, type Migration, type MigrationResultSet, Migrator, sql } from "kysely";
import { planModeSessions } from "./migration-plan-mode.js";
import type { ServerDatabase } from "./schema.js";

/**
 * Every migration, in order, in code: the package is bundled into one file, so a folder scan
 * would find nothing at run time. Names sort in the order they apply; never rename or edit one
 * that has shipped, add a new one instead.
 *
 * Portable DDL where it can be: text, integer and double precision columns, CHECK constraints,
 * foreign keys and plain indexes, which SQLite and PostgreSQL both accept as written. A change
 * SQLite cannot make in place (a CHECK constraint) branches on the dialect's adapter.
 */
const initialSchema: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("users")
      .addColumn("id", "text", (col) => col.primaryKey())
      .addColumn("username", "text", (col) => col.notNull().unique())
      .addColumn("password_hash", "text", (col) => col.notNull())
      .addColumn("role", "text", (col) => col.notNull().check(sql`role in ('admin', 'member')`))
      .addColumn("must_change_password", "integer", (col) =>
        col.notNull().defaultTo(0).check(sql`must_change_password in (0, 1)`),
      )
      .addColumn("created_at", "text", (col) => col.notNull())
      .execute();

    await db.schema
      .createTable("auth_sessions")
      .addColumn("id", "text", (col) => col.primaryKey())
      .addColumn("user_id", "text", (col) => col.notNull().references("users.id").onDelete("cascade"))
      .addColumn("created_at", "text", (col) => col.notNull())
      .addColumn("expires_at", "text", (col) => col.notNull())
      .execute();
    await db.schema.createIndex("auth_sessions_user_id").on("auth_sessions").column("user_id").execute();

    await db.schema
      .createTable("api_tokens")
      .addColumn("id", "text", (col) => col.primaryKey())
      .addColumn("user_id", "text", (col) => col.notNull().references("users.id").onDelete("cascade"))
      .addColumn("name", "text", (col) => col.notNull())
      .addColumn("token_hash", "text", (col) => col.notNull().unique())
      .addColumn("created_at", "text", (col) => col.notNull())
      .addColumn("last_used_at", "text")
      .execute();
    await db.schema.createIndex("api_tokens_user_id").on("api_tokens").column("user_id").execute();

    await db.schema
      .createTable("sessions")
      .addColumn("id", "text", (col) => col.primaryKey())
      .addColumn("user_id", "text", (col) => col.notNull().references("users.id"))
      .addColumn("title", "text", (col) => col.notNull())
      .addColumn("agent_id", "text", (col) => col.notNull())
      .addColumn("workspace", "text", (col) => col.notNull())
      .addColumn("provider", "text", (col) => col.notNull())
      .addColumn("model_id", "text", (col) => col.notNull())
      .addColumn("approval_mode", "text", (col) =>
        col.notNull().check(sql`approval_mode in ('allow-all', 'deny-all', 'read-only', 'always-ask')`),
      )
      .addColumn("state", "text", (col) => col.notNull().check(sql`state in ('idle', 'running')`))
      .addColumn("created_at", "text", (col) => col.notNull())
      .addColumn("updated_at", "text", (col) => col.notNull())
      .execute();
    await db.schema
      .createIndex("sessions_user_id_updated_at")
      .on("sessions")
      .columns(["user_id", "updated_at"])
      .execute();

    await db.schema
      .createTable("usage_records")
      .addColumn("id", "text", (col) => col.primaryKey())
      .addColumn("session_id", "text", (col) => col.notNull().references("sessions.id").onDelete("cascade"))
      .addColumn("cache_read_tokens", "integer", (col) => col.notNull())
      .addColumn("cache_write_tokens", "integer", (col) => col.notNull())
      .addColumn("output_tokens", "integer", (col) => col.notNull())
      .addColumn("total_tokens", "integer", (col) => col.notNull())
      .addColumn("cost_usd", "double precision")
      .addColumn("created_at", "text", (col) => col.notNull())
      .execute();
    await db.schema
      .createIndex("usage_records_session_id_created_at")
      .on("usage_records")
      .columns(["session_id", "created_at"])
      .execute();
  },
};

/**
 * Team administration: when a user last logged in and whether an admin disabled them, and an
 * optional expiry for API tokens. All nullable, so existing rows need no backfill.
 */
const teamAdministration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("users").addColumn("last_login_at", "text").execute();
    await db.schema.alterTable("users").addColumn("disabled_at", "text").execute();
    await db.schema.alterTable("api_tokens").addColumn("expires_at", "text").execute();
  },
};

/**
 * Execution profiles: where a session's tools run, as chosen when it was created. Sessions made
 * before profiles existed ran natively, which the default says.
 */
const executionProfiles: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable("sessions")
      .addColumn("execution_profile", "text", (column) => column.notNull().defaultTo("native"))
      .execute();
  },
};

/**
 * Several server instances on one database: each instance's row and the lease it renews, and the
 * instance whose runtime holds a session (null: none does). No foreign key from sessions to
 * instances: an instance's row goes when it stops or dies, and a session still naming it is then
 * free to take.
 */
const instanceLeases: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("server_instances")
      .addColumn("id", "text", (col) => col.primaryKey())
      .addColumn("address", "text", (col) => col.notNull())
      .addColumn("hostname", "text", (col) => col.notNull())
      .addColumn("pid", "integer", (col) => col.notNull())
      .addColumn("started_at", "text", (col) => col.notNull())
      .addColumn("lease_expires_at", "text", (col) => col.notNull())
      .execute();
    await db.schema.alterTable("sessions").addColumn("owner_instance", "text").execute();
    await db.schema.createIndex("sessions_owner_instance").on("sessions").column("owner_instance").execute();
  },
};

/**
 * Traces in the database, for instances that share no data root: a record per row, in the order
 * of its file (see TraceRecordsTable). Unused while traces are files.
 */
const traceRecords: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("trace_records")
      .addColumn("session_id", "text", (col) => col.notNull())
      .addColumn("file_index", "integer", (col) => col.notNull())
      .addColumn("day", "text", (col) => col.notNull())
      .addColumn("position", "integer", (col) => col.notNull())
      .addColumn("record", "text", (col) => col.notNull())
      .addPrimaryKeyConstraint("trace_records_pk", ["session_id", "file_index", "position"])
      .execute();
  },
};

/** The migrations the server knows, oldest first. */
export const MIGRATIONS: Readonly<Record<string, Migration>> = Object.freeze({
  "0001_initial_schema": initialSchema,
  "0002_team_administration": teamAdministration,
  "0003_plan_mode_sessions": planModeSessions,
  "0004_execution_profiles": executionProfiles,
  "0005_instance_leases": instanceLeases,
  "0006_trace_records": traceRecords,
});

export function createMigrator(db: Kysely<ServerDatabase>): Migrator {
  return new Migrator({ db, provider: { getMigrations: async () => ({ ...MIGRATIONS }) } });
}

/**
 * Applies every pending migration (none on a database that is up to date) and returns the
 * names applied by this call. Throws with the failing migration's name when one fails; Kysely
 * runs each migration in a transaction where the dialect supports transactional DDL.
 */
export async function migrateToLatest(db: Kysely<ServerDatabase>): Promise<string[]> {
  const result: MigrationResultSet = await createMigrator(db).migrateToLatest();
  if (result.error !== undefined) {
    const failed = result.results?.find((item) => item.status === "Error")?.migrationName;
    const reason = errorMessage(result.error);
    throw new Error(
      failed ? `database migration ${failed} failed: ${reason}` : `database migration failed: ${reason}`,
      { cause: result.error },
    );
  }
  return (result.results ?? []).filter((item) => item.status === "Success").map((item) => item.migrationName);
}
