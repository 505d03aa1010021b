import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DatabaseOpenError, serverDatabaseFile, serverLogFile, startServer } from "../src/index.js";
import { startTestServer, tempDataRoot, testDatabaseFor } from "./helpers.js";
import {
  TEST_DATABASE,
  testPostgresAdminUrl,
  testPostgresUrlWithPassword,
} from "./postgres/test-database.js";

/** The reason a start failed, as the operator sees it. */
async function startFailure(database: string): Promise<Error> {
  const dataRoot = await tempDataRoot();
  const error = await startServer({ port: 0, dataRoot, database, webRoot: false }).then(
    async (server) => {
      await server.close();
      return new Error("the server started");
    },
    (reason: unknown) => reason as Error,
  );
  return error;
}

describe("the database a server opens", () => {
  it("is named in the log, password redacted", async () => {
    const dataRoot = await tempDataRoot();
    const database = await testDatabaseFor(dataRoot);
    const server = await startTestServer({ dataRoot });
    await server.close();
    const lines = (await readFile(serverLogFile(dataRoot), "utf8")).trim().split("\n");
    const opened = lines.map((line) => JSON.parse(line)).find((entry) => entry.msg === "database opened");
    if (database === undefined) {
      expect(opened.database).toBe(`SQLite ${serverDatabaseFile(dataRoot)}`);
    } else {
      const url = new URL(database);
      expect(opened.database).toBe(`PostgreSQL postgres://${url.username}:***@${url.host}${url.pathname}`);
      expect(lines.join("\n")).not.toContain(url.password);
    }
  });

  it.runIf(TEST_DATABASE === "sqlite")(
    "a SQLite file that cannot be made is one line naming it",
    async () => {
      const dataRoot = await tempDataRoot();
      const blocker = join(dataRoot, "not-a-folder");
      await writeFile(blocker, "");
      const error = await startFailure(join(blocker, "index.db"));
      expect(error).toBeInstanceOf(DatabaseOpenError);
      expect(error.message).toMatch(/^cannot open the database SQLite .*not-a-folder\/index\.db: \S/);
      expect(error.message).not.toContain("\n");
    },
  );

  it.runIf(TEST_DATABASE === "postgres")(
    "a refused password is one line, the password redacted",
    async () => {
      const error = await startFailure(testPostgresUrlWithPassword("not-the-password-42"));
      expect(error).toBeInstanceOf(DatabaseOpenError);
      expect(error.message).toMatch(
        /^cannot open the database PostgreSQL postgres:\/\/\w+:\*\*\*@127\.0\.0\.1:\d+\/postgres: password authentication failed/,
      );
      expect(error.message).not.toContain("not-the-password-42");
    },
  );

  it.runIf(TEST_DATABASE === "postgres")("a database that does not exist is named", async () => {
    const url = new URL(testPostgresAdminUrl());
    url.pathname = "/no_such_penguin_database";
    const error = await startFailure(url.href);
    expect(error).toBeInstanceOf(DatabaseOpenError);
    expect(error.message).toMatch(/database "no_such_penguin_database" does not exist/);
    expect(error.message).not.toContain(url.password);
  });
});
