import { type Kysely, type Migration, SqliteIntrospector, sql } from "kysely";

/**
 * The modes a session row may hold from this migration on: the four of 0001 and plan mode.
 * Written out, not imported: a shipped migration must not change when the list of modes does.
 */
const MODES_CHECK = sql`approval_mode in ('allow-all', 'deny-all', 'read-only', 'always-ask', 'plan')`;

/** PostgreSQL's name for the CHECK that 0001 wrote inline on the column (`<table>_<column>_check`). */
const POSTGRES_MODE_CHECK = "sessions_approval_mode_check";

/**
 * Sessions may be in plan mode. PostgreSQL changes a CHECK in place: drop it, add the new one.
 * SQLite cannot, so the table is rebuilt as its documented procedure for other schema changes
 * says: foreign keys off (outside the transaction, where the pragma has no effect), a new table
 * filled from the old one, the old one dropped, the new one renamed, the index made again, and
 * `PRAGMA foreign_key_check` must find nothing before the transaction commits.
 */
export const planModeSessions: Migration = {
  async up(db: Kysely<unknown>) {
    // The dialect, through its public face: each Kysely dialect brings its own introspector.
    if (db.introspection instanceof SqliteIntrospector) return rebuildSqliteSessions(db);
    await db.schema.alterTable("sessions").dropConstraint(POSTGRES_MODE_CHECK).execute();
    await db.schema.alterTable("sessions").addCheckConstraint(POSTGRES_MODE_CHECK, MODES_CHECK).execute();
  },
};

async function rebuildSqliteSessions(db: Kysely<unknown>): Promise<void> {
  const before = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(db);
  const keysWereOn = before.rows[0]?.foreign_keys === 1;
  // With foreign keys on, dropping `sessions` would delete its usage rows (on delete cascade).
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    await db.transaction().execute(async (trx) => {
      await trx.schema
        .createTable("sessions_next")
        .addColumn("id", "text", (col) => col.primaryKey())
        .addColumn("user_id", "text", (col) => col.notNull().references("users.id"))
        .addColumn("title", "text", (col) => col.notNull())
        .addColumn("agent_id", "text", (col) => col.notNull())
        .addColumn("workspace", "text", (col) => col.notNull())
        .addColumn("provider", "text", (col) => col.notNull())
        .addColumn("model_id", "text", (col) => col.notNull())
        .addColumn("approval_mode", "text", (col) => col.notNull().check(MODES_CHECK))
        .addColumn("state", "text", (col) => col.notNull().check(sql`state in ('idle', 'running')`))
        .addColumn("created_at", "text", (col) => col.notNull())
        .addColumn("updated_at", "text", (col) => col.notNull())
        .execute();
      await sql`insert into sessions_next (id, user_id, title, agent_id, workspace, provider, model_id, approval_mode, state, created_at, updated_at)
        select id, user_id, title, agent_id, workspace, provider, model_id, approval_mode, state, created_at, updated_at from sessions`.execute(
        trx,
      );
      await trx.schema.dropTable("sessions").execute();
      await trx.schema.alterTable("sessions_next").renameTo("sessions").execute();
      await trx.schema
        .createIndex("sessions_user_id_updated_at")
        .on("sessions")
        .columns(["user_id", "updated_at"])
        .execute();
      const broken = await sql<{ table: string }>`pragma foreign_key_check`.execute(trx);
      if (broken.rows.length > 0) {
        const tables = [...new Set(broken.rows.map((row) => row.table))].join(", ");
        throw new Error(`rows of ${tables} point at rows that no longer exist`);
      }
    });
  } finally {
    if (keysWereOn) await sql`pragma foreign_keys = on`.execute(db);
  }
}
