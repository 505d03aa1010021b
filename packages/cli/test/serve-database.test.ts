import { existsSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { penguin, tempDir, withLoadLog } from "./helpers.js";
import { loadedPackages } from "./loaded-packages.js";

/** A loopback port nothing listens on (taken, then given back). */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe("penguin serve --database", () => {
  test("a scheme other than postgres:// is a usage error naming what is accepted", async () => {
    const r = await penguin([
      "serve",
      "--port",
      "0",
      "--data-dir",
      tempDir("data"),
      "--database",
      "mysql://root@db/penguin",
    ]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(
      /--database supports PostgreSQL \(postgres:\/\/.*\) or a SQLite file path, not a mysql:\/\/ URL/,
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  test("PENGUIN_DATABASE_URL is read when the flag is not given, and named when it is wrong", async () => {
    const r = await penguin(["serve", "--port", "0", "--data-dir", tempDir("data")], {
      env: { PENGUIN_DATABASE_URL: "redis://cache/0" },
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/PENGUIN_DATABASE_URL \(read as --database\): .*not a redis:\/\/ URL/);
  });

  test("a PostgreSQL that cannot be reached is one line with the password redacted, exit 1", async () => {
    const port = await closedPort();
    const url = `postgres://penguin:hunter2-secret@127.0.0.1:${port}/penguin`;
    const r = await penguin(["serve", "--port", "0", "--data-dir", tempDir("data"), "--database", url]);
    expect(r.exitCode).toBe(1);
    const redacted = `postgres://penguin:***@127.0.0.1:${port}/penguin`;
    expect(r.stderr).toContain(`database: PostgreSQL ${redacted}`);
    expect(r.stderr).toMatch(
      new RegExp(
        `cannot open the database PostgreSQL ${redacted.replaceAll(/[.*+?^${}()|[\]\\/]/g, "\\$&")}: .*ECONNREFUSED`,
      ),
    );
    expect(r.stderr).not.toContain("hunter2-secret");
    expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
  });

  test("a SQLite file given by path is used, named at start, and the PostgreSQL driver is never loaded", async () => {
    const file = join(tempDir("db"), "index.db");
    const serve = withLoadLog(["serve", "--port", "0", "--data-dir", tempDir("data"), "--database", file]);
    let stderr = "";
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no listening line: ${stderr}`)), 30_000);
      serve.child.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
        if (/listening on http/.test(stderr)) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    expect(stderr).toContain(`database: SQLite ${file}`);
    expect(existsSync(file)).toBe(true);
    serve.child.kill("SIGTERM");
    expect((await serve.child).exitCode).toBe(0);
    const loads = loadedPackages(serve.loads());
    expect(loads).toContain("@penguin/server");
    expect(loads).not.toContain("pg");
  });
});
