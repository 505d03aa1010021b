import { stat } from "node:fs/promises";
import { join } from "node:path";
import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
} from "kysely";
import { describe, expect, it } from "vitest";
import { MIGRATIONS, migrateToLatest, openDatabase, serverDatabaseFile } from "../src/index.js";
import { tempDataRoot, testDatabaseFor } from "./helpers.js";

const TABLES = [
  "api_tokens",
  "auth_sessions",
  "server_instances",
  "sessions",
  "trace_records",
  "usage_records",
  "users",
];

/** A new SQLite file in a fresh data root, for the tests of the file itself. */
async function freshDatabase() {
  const root = await tempDataRoot();
  const file = serverDatabaseFile(root);
  const db = await openDatabase(file);
  return { root, file, db };
}

/** A new empty database of the test project (SQLite file or PostgreSQL database), as a server opens it. */
async function freshProjectDatabase() {
  const root = await tempDataRoot();
  const target = (await testDatabaseFor(root)) ?? serverDatabaseFile(root);
  return { target, db: await openDatabase(target) };
}

describe("database", () => {
  it("lives at <root>/server/penguin.db, 0600 in a 0700 folder", async () => {
    const { root, file, db } = await freshDatabase();
    await migrateToLatest(db);
    expect(file).toBe(join(root, "server", "penguin.db"));
    if (process.platform !== "win32") {
      expect((await stat(join(root, "server"))).mode & 0o777).toBe(0o700);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      // SQLite gives the write-ahead log the database file's mode.
      expect((await stat(`${file}-wal`)).mode & 0o777).toBe(0o600);
    }
    await db.destroy();
  });

  it("runs in WAL mode with foreign keys on and a busy timeout", async () => {
    const { db } = await freshDatabase();
    const mode = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(db);
    const keys = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(db);
    const timeout = await sql<{ timeout: number }>`pragma busy_timeout`.execute(db);
    expect(mode.rows[0].journal_mode).toBe("wal");
    expect(keys.rows[0].foreign_keys).toBe(1);
    expect(timeout.rows[0].timeout).toBeGreaterThan(0);
    await db.destroy();
  });

  it("migrates a fresh database to the latest schema, and a second start applies nothing", async () => {
    const { target, db } = await freshProjectDatabase();
    expect(await migrateToLatest(db)).toEqual(Object.keys(MIGRATIONS));
    await db.destroy();

    const reopened = await openDatabase(target);
    expect(await migrateToLatest(reopened)).toEqual([]);
    const tables = await reopened.introspection.getTables();
    expect(tables.map((table) => table.name).sort()).toEqual(TABLES);
    const users = tables.find((table) => table.name === "users")!;
    expect(users.columns.map((column) => column.name).sort()).toEqual(
      [
        "created_at",
        "disabled_at",
        "id",
        "last_login_at",
        "must_change_password",
        "password_hash",
        "role",
        "username",
      ].sort(),
    );
    const tokens = tables.find((table) => table.name === "api_tokens")!;
    expect(tokens.columns.map((column) => column.name)).toContain("expires_at");
    await reopened.destroy();
  });

  it("enforces the schema's rules: unique usernames, known roles and modes, cascades", async () => {
    const { db } = await freshProjectDatabase();
    await migrateToLatest(db);
    const now = new Date().toISOString();
    const user = {
      id: "u1",
      username: "ann",
      password_hash: "x",
      role: "member" as const,
      must_change_password: 0 as const,
      created_at: now,
    };
    await db.insertInto("users").values(user).execute();
    await expect(
      db
        .insertInto("users")
        .values({ ...user, id: "u2" })
        .execute(),
    ).rejects.toThrow(/UNIQUE|unique constraint/);
    await expect(
      db
        .insertInto("users")
        .values({ ...user, id: "u3", username: "bob", role: "root" as "admin" })
        .execute(),
    ).rejects.toThrow(/CHECK|check constraint/);

    const session = {
      id: "s1",
      user_id: "u1",
      title: "t",
      agent_id: "default",
      workspace: "/w",
      provider: "openai",
      model_id: "m",
      approval_mode: "always-ask" as const,
      state: "idle" as const,
      created_at: now,
      updated_at: now,
    };
    await expect(
      db
        .insertInto("sessions")
        .values({ ...session, approval_mode: "yolo" as "allow-all" })
        .execute(),
    ).rejects.toThrow(/CHECK|check constraint/);
    await expect(
      db
        .insertInto("sessions")
        .values({ ...session, user_id: "nobody" })
        .execute(),
    ).rejects.toThrow(/FOREIGN KEY|foreign key constraint/);
    await db.insertInto("sessions").values(session).execute();
    await db
      .insertInto("usage_records")
      .values({
        id: "r1",
        session_id: "s1",
        cache_read_tokens: 10,
        cache_write_tokens: 2,
        output_tokens: 5,
        total_tokens: 17,
        cost_usd: 0.0125,
        created_at: now,
      })
      .execute();
    const usage = await db.selectFrom("usage_records").selectAll().executeTakeFirstOrThrow();
    expect(usage.cost_usd).toBeCloseTo(0.0125);

    await db.deleteFrom("sessions").where("id", "=", "s1").execute();
    expect(await db.selectFrom("usage_records").selectAll().execute()).toEqual([]);
    await db.destroy();
  });

  it("reports which migration failed", async () => {
    const { target, db } = await freshProjectDatabase();
    // A table in the way makes the initial migration fail.
    await sql`create table users (id text)`.execute(db);
    await db.destroy();
    const blocked = await openDatabase(target);
    await expect(migrateToLatest(blocked)).rejects.toThrow(/0001_initial_schema failed: .*users/);
    await blocked.destroy();
  });

  it("compiles every migration for PostgreSQL as well (portable DDL)", async () => {
    // Kysely's dummy driver compiles queries for a dialect without a server: run the
    // migrations through PostgreSQL's compiler and look at the SQL it would send.
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
    for (const migration of Object.values(MIGRATIONS)) await migration.up(postgres);
    const ddl = statements.join(";\n");
    expect(ddl).toContain('create table "users"');
    expect(ddl).toContain('"cost_usd" double precision');
    expect(ddl).toContain('references "users" ("id") on delete cascade');
    expect(ddl).not.toMatch(/autoincrement|without rowid|pragma|datetime\(|strftime|\?/i);
    await postgres.destroy();
  });
});
