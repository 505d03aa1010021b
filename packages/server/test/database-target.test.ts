import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  DatabaseOpenError,
  DatabaseTargetError,
  databaseSecretValues,
  describeDatabaseTarget,
  parseDatabaseTarget,
  redactDatabaseUrl,
} from "../src/index.js";

describe("a --database value", () => {
  it("is a PostgreSQL URL with either scheme libpq accepts", () => {
    expect(parseDatabaseTarget("postgres://ann:secret@db.example.com:5432/penguin")).toEqual({
      kind: "postgres",
      url: "postgres://ann:secret@db.example.com:5432/penguin",
    });
    expect(parseDatabaseTarget("postgresql://db.example.com/penguin").kind).toBe("postgres");
    expect(parseDatabaseTarget("POSTGRES://db.example.com/penguin").kind).toBe("postgres");
  });

  it("is a SQLite file otherwise, relative paths against the working folder", () => {
    expect(parseDatabaseTarget("/var/lib/penguin/index.db")).toEqual({
      kind: "sqlite",
      file: "/var/lib/penguin/index.db",
    });
    expect(parseDatabaseTarget("data/index.db", "/srv")).toEqual({
      kind: "sqlite",
      file: join("/srv", "data/index.db"),
    });
  });

  it("refuses other schemes, empty values and URLs without a host, saying what is accepted", () => {
    expect(() => parseDatabaseTarget("mysql://root@db/penguin")).toThrow(DatabaseTargetError);
    expect(() => parseDatabaseTarget("mysql://root@db/penguin")).toThrow(
      /PostgreSQL .*or a SQLite file path, not a mysql:\/\/ URL/,
    );
    expect(() => parseDatabaseTarget("sqlite:///tmp/x.db")).toThrow(/not a sqlite:\/\/ URL/);
    expect(() => parseDatabaseTarget("  ")).toThrow(/not an empty value/);
    expect(() => parseDatabaseTarget("postgres:///penguin")).toThrow(/needs a host/);
  });

  it("never repeats a URL that does not parse (it may hold a password)", () => {
    let message = "";
    try {
      parseDatabaseTarget("postgres://ann:hunter2@[bad/penguin");
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/does not parse/);
    expect(message).not.toContain("hunter2");
  });
});

describe("a database target shown to a person", () => {
  it("has its password redacted, in the user part and in the query", () => {
    expect(describeDatabaseTarget(parseDatabaseTarget("postgres://ann:s3cr%40t@db:5432/penguin"))).toBe(
      "PostgreSQL postgres://ann:***@db:5432/penguin",
    );
    expect(redactDatabaseUrl("postgres://db/penguin?sslmode=require&password=abc")).toBe(
      "postgres://db/penguin?sslmode=require&password=***",
    );
    expect(redactDatabaseUrl("postgres://ann@db/penguin")).toBe("postgres://ann@db/penguin");
    expect(describeDatabaseTarget({ kind: "sqlite", file: "/srv/penguin.db" })).toBe(
      "SQLite /srv/penguin.db",
    );
  });

  it("gives the log redactor the password as written and decoded", () => {
    const target = parseDatabaseTarget("postgres://ann:s3cr%40t@db/penguin?sslpassword=keypass");
    expect(databaseSecretValues(target).sort()).toEqual(["keypass", "s3cr%40t", "s3cr@t"]);
    expect(databaseSecretValues({ kind: "sqlite", file: "/srv/penguin.db" })).toEqual([]);
  });

  it("fails to open with one line naming it, never the password", () => {
    const target = parseDatabaseTarget("postgres://ann:s3cr%40t@db/penguin");
    const error = new DatabaseOpenError(target, new Error('password "s3cr@t"\nwas refused'));
    expect(error.message).toBe(
      'cannot open the database PostgreSQL postgres://ann:***@db/penguin: password "***" was refused',
    );
    const refused = Object.assign(
      new AggregateError(
        [new Error("connect ECONNREFUSED ::1:5432"), new Error("connect ECONNREFUSED 127.0.0.1:5432")],
        "",
      ),
      {
        code: "ECONNREFUSED",
      },
    );
    expect(new DatabaseOpenError(target, refused).message).toMatch(
      /: connect ECONNREFUSED ::1:5432; connect ECONNREFUSED 127\.0\.0\.1:5432$/,
    );
  });
});
