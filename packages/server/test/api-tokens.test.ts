import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { adminSession, memberSession, readJson, request, startTestServer, tempDataRoot } from "./helpers.js";
import { TEST_DATABASE } from "./postgres/test-database.js";

interface CreatedToken {
  id: string;
  name: string;
  token: string;
  created_at: string;
  last_used_at: string | null;
}

async function createToken(url: string, cookie: string, name: string): Promise<CreatedToken> {
  const response = await request(url, "/api/tokens", { cookie, json: { name } });
  expect(response.status).toBe(201);
  return readJson<CreatedToken>(response);
}

describe("API tokens", () => {
  it("authenticate API clients as their owner, and are shown only once", async () => {
    const server = await startTestServer();
    const cookie = await adminSession(server);
    const created = await createToken(server.url, cookie, "ci");
    expect(created.token).toMatch(/^pgn_[A-Za-z0-9_-]{40,}$/);

    const me = await request(server.url, "/api/auth/me", { bearer: created.token });
    expect(me.status).toBe(200);
    expect((await readJson<{ user: { username: string } }>(me)).user.username).toBe("admin");

    const list = await request(server.url, "/api/tokens", { bearer: created.token });
    const { tokens } = await readJson<{ tokens: Record<string, unknown>[] }>(list);
    expect(tokens).toHaveLength(1);
    expect(tokens[0]).toMatchObject({ id: created.id, name: "ci" });
    expect(tokens[0].last_used_at).toEqual(expect.any(String));
    expect(JSON.stringify(tokens)).not.toContain(created.token);
  });

  it("are stored hashed: the raw token is in no row of the database, nor in its files", async () => {
    const dataRoot = await tempDataRoot();
    const server = await startTestServer({ dataRoot });
    const cookie = await adminSession(server);
    const created = await createToken(server.url, cookie, "laptop");
    expect((await request(server.url, "/api/auth/me", { bearer: created.token })).status).toBe(200);
    const secret = created.token.slice("pgn_".length);

    // Every row of every table, as the database gives it back (SQLite and PostgreSQL alike).
    const tables = await server.db.introspection.getTables();
    expect(tables.map((table) => table.name)).toEqual(
      expect.arrayContaining(["api_tokens", "auth_sessions"]),
    );
    for (const table of tables) {
      const rows = await sql`select * from ${sql.table(table.name)}`.execute(server.db);
      const text = JSON.stringify(rows.rows);
      expect(text.includes(secret), table.name).toBe(false);
      expect(text.includes(cookie), table.name).toBe(false);
    }
    const tokenRows = await server.db.selectFrom("api_tokens").select("token_hash").execute();
    expect(tokenRows).toEqual([{ token_hash: expect.stringMatching(/^[0-9a-f]{64}$/) }]);
    await server.close();

    if (TEST_DATABASE !== "sqlite") return;
    // SQLite keeps deleted and old pages in its files: the bytes must not hold it either.
    const dir = join(dataRoot, "server");
    const files = await readdir(dir);
    expect(files).toContain("penguin.db");
    for (const file of files) {
      const bytes = await readFile(join(dir, file));
      expect(bytes.includes(Buffer.from(secret)), file).toBe(false);
      // Nor the session cookie.
      expect(bytes.includes(Buffer.from(cookie)), file).toBe(false);
    }
  });

  it("stop working once revoked, and only their owner can revoke them", async () => {
    const server = await startTestServer();
    const admin = await adminSession(server);
    const bob = await memberSession(server, admin, "bob");
    const adminToken = await createToken(server.url, admin, "admin's");
    const bobToken = await createToken(server.url, bob, "bob's");

    // Bob cannot see or delete the admin's token: it is "not found" for him.
    const foreign = await request(server.url, `/api/tokens/${adminToken.id}`, {
      method: "DELETE",
      cookie: bob,
    });
    expect(foreign.status).toBe(404);
    expect((await request(server.url, "/api/auth/me", { bearer: adminToken.token })).status).toBe(200);
    const bobList = await readJson<{ tokens: { id: string }[] }>(
      await request(server.url, "/api/tokens", { cookie: bob }),
    );
    expect(bobList.tokens.map((token) => token.id)).toEqual([bobToken.id]);

    const revoked = await request(server.url, `/api/tokens/${bobToken.id}`, {
      method: "DELETE",
      bearer: bobToken.token,
    });
    expect(revoked.status).toBe(204);
    expect((await request(server.url, "/api/auth/me", { bearer: bobToken.token })).status).toBe(401);
    const again = await request(server.url, `/api/tokens/${bobToken.id}`, { method: "DELETE", cookie: bob });
    expect(again.status).toBe(404);
  });

  it("need a name", async () => {
    const server = await startTestServer();
    const cookie = await adminSession(server);
    for (const body of [
      {},
      { name: "" },
      { name: "   " },
      { name: "x".repeat(101) },
      { name: "ok", extra: 1 },
    ]) {
      const response = await request(server.url, "/api/tokens", { cookie, json: body });
      expect(response.status, JSON.stringify(body)).toBe(400);
    }
  });
});
