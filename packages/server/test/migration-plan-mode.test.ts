import {
  DummyDriver,
  Kysely,
  Migrator,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
} from "kysely";
import { describe, expect, it } from "vitest";
import { MIGRATIONS, migrateToLatest, openDatabase, serverDatabaseFile } from "../src/index.js";
import { tempDataRoot } from "./helpers.js";

// 0003 lets sessions be in plan mode. SQLite rebuilds the sessions table for it: the rows of a
// database at 0002 (and the usage rows that point at them) must come through untouched.

const PREVIOUS = "0002_team_administration";
const NOW = "2026-01-02T03:04:05.000Z";

async function databaseAtPreviousVersion() {
  const file = serverDatabaseFile(await tempDataRoot());
  const db = await openDatabase(file);
  const migrator = new Migrator({ db, provider: { getMigrations: async () => ({ ...MIGRATIONS }) } });
  const result = await migrator.migrateTo(PREVIOUS);
  expect(result.error).toBeUndefined();
  await db
    .insertInto("users")
    .values({
      id: "u1",
      username: "ann",
      password_hash: "x",
      role: "member",
      must_change_password: 0,
      created_at: NOW,
      last_login_at: null,
      disabled_at: null,
    })
    .execute();
  const session = {
    user_id: "u1",
    title: "Old",
    agent_id: "default",
    workspace: "/w",
    provider: "openai",
    model_id: "m",
    state: "idle" as const,
    created_at: NOW,
    updated_at: NOW,
  };
  await db
    .insertInto("sessions")
    .values([
      { ...session, id: "s1", approval_mode: "always-ask" },
      { ...session, id: "s2", approval_mode: "read-only", state: "running" },
    ])
    .execute();
  await db
    .insertInto("usage_records")
    .values({
      id: "r1",
      session_id: "s1",
      cache_read_tokens: 1,
      cache_write_tokens: 2,
      output_tokens: 3,
      total_tokens: 6,
      cost_usd: 0.5,
      created_at: NOW,
    })
    .execute();
  return { file, db };
}

describe("migration 0003_plan_mode_sessions", () => {
  it("refuses plan mode at the previous version (what the migration changes)", async () => {
    const { db } = await databaseAtPreviousVersion();
    await expect(
      db.updateTable("sessions").set({ approval_mode: "plan" }).where("id", "=", "s1").execute(),
    ).rejects.toThrow(/CHECK/);
    await db.destroy();
  });

  it("keeps every existing row, allows plan, still refuses unknown modes and keeps foreign keys", async () => {
    const { file, db } = await databaseAtPreviousVersion();
    expect(await migrateToLatest(db)).toEqual([
      "0003_plan_mode_sessions",
      "0004_execution_profiles",
      "0005_instance_leases",
      "0006_trace_records",
    ]);

    const sessions = await db.selectFrom("sessions").selectAll().orderBy("id").execute();
    expect(sessions.map((row) => [row.id, row.title, row.approval_mode, row.state, row.updated_at])).toEqual([
      ["s1", "Old", "always-ask", "idle", NOW],
      ["s2", "Old", "read-only", "running", NOW],
    ]);
    // Dropping the old table must not have cascaded to the usage rows.
    const usage = await db.selectFrom("usage_records").selectAll().execute();
    expect(usage.map((row) => [row.id, row.session_id, row.total_tokens])).toEqual([["r1", "s1", 6]]);

    await db.updateTable("sessions").set({ approval_mode: "plan" }).where("id", "=", "s1").execute();
    const planned = await db
      .selectFrom("sessions")
      .select("approval_mode")
      .where("id", "=", "s1")
      .executeTakeFirst();
    expect(planned?.approval_mode).toBe("plan");
    await expect(
      db
        .updateTable("sessions")
        .set({ approval_mode: "yolo" as "plan" })
        .where("id", "=", "s2")
        .execute(),
    ).rejects.toThrow(/CHECK/);

    // Foreign keys are on again, and point at the rebuilt table.
    const keys = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(db);
    expect(keys.rows[0]?.foreign_keys).toBe(1);
    await expect(
      db
        .insertInto("usage_records")
        .values({
          id: "r2",
          session_id: "nope",
          cache_read_tokens: 0,
          cache_write_tokens: 0,
          output_tokens: 0,
          total_tokens: 0,
          cost_usd: null,
          created_at: NOW,
        })
        .execute(),
    ).rejects.toThrow(/FOREIGN KEY/);
    await db.deleteFrom("sessions").where("id", "=", "s1").execute();
    expect(await db.selectFrom("usage_records").selectAll().execute()).toEqual([]);
    const indexes = await sql<{ name: string }>`pragma index_list(sessions)`.execute(db);
    expect(indexes.rows.map((row) => row.name)).toContain("sessions_user_id_updated_at");
    await db.destroy();

    const reopened = await openDatabase(file);
    expect(await migrateToLatest(reopened)).toEqual([]);
    await reopened.destroy();
  });

  it("changes the CHECK in place on PostgreSQL (no table rebuild, no pragma)", async () => {
    const statements: string[] = [];
    const postgres = new Kysely<unknown>({
      dialect: {
        createAdapter: () => new PostgresAdapter(),
        createDriver: () => new DummyDriver(),
        createIntrospector: (db) => new PostgresIntrospector(db),
        createQueryCompiler: () => new PostgresQueryCompiler(),
      },
      log: (event) => {
        statements.push(event.query.sql);
      },
    });
    await MIGRATIONS["0003_plan_mode_sessions"]?.up(postgres);
    expect(statements).toEqual([
      'alter table "sessions" drop constraint "sessions_approval_mode_check"',
      `alter table "sessions" add constraint "sessions_approval_mode_check" check (approval_mode in ('allow-all', 'deny-all', 'read-only', 'always-ask', 'plan'))`,
    ]);
    await postgres.destroy();
  });
});
