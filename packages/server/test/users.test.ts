import { describe, expect, it } from "vitest";
import {
  adminSession,
  type ErrorBody,
  login,
  memberSession,
  readJson,
  request,
  startTestServer,
  type UserBody,
} from "./helpers.js";

describe("user administration", () => {
  it("lets an admin create members, who must replace the initial password", async () => {
    const server = await startTestServer();
    const admin = await adminSession(server);
    const created = await request(server.url, "/api/users", {
      cookie: admin,
      json: { username: "Carol", password: "initial-password" },
    });
    expect(created.status).toBe(201);
    const { user } = await readJson<UserBody>(created);
    expect(user).toMatchObject({ username: "carol", role: "member", must_change_password: true });
    expect(JSON.stringify(user)).not.toContain("password_hash");

    const carol = await login(server.url, "carol", "initial-password");
    const blocked = await request(server.url, "/api/tokens", { cookie: carol });
    expect(blocked.status).toBe(403);

    const list = await readJson<{ users: { username: string }[] }>(
      await request(server.url, "/api/users", { cookie: admin }),
    );
    expect(list.users.map((entry) => entry.username)).toEqual(["admin", "carol"]);
  });

  it("refuses members and duplicate usernames", async () => {
    const server = await startTestServer();
    const admin = await adminSession(server);
    const dave = await memberSession(server, admin, "dave");
    expect((await request(server.url, "/api/users", { cookie: dave })).status).toBe(403);
    const escalate = await request(server.url, "/api/users", {
      cookie: dave,
      json: { username: "eve", password: "eve-password", role: "admin" },
    });
    expect(escalate.status).toBe(403);
    expect(await readJson<ErrorBody>(escalate)).toMatchObject({ error: "forbidden" });

    const duplicate = await request(server.url, "/api/users", {
      cookie: admin,
      json: { username: "DAVE", password: "another-password" },
    });
    expect(duplicate.status).toBe(409);
  });

  it("validates new usernames, passwords and roles", async () => {
    const server = await startTestServer();
    const admin = await adminSession(server);
    const bad = [
      { username: "../etc", password: "long enough" },
      { username: "", password: "long enough" },
      { username: "ok", password: "short" },
      { username: "ok", password: "long enough", role: "root" },
      { username: "ok" },
    ];
    for (const body of bad) {
      const response = await request(server.url, "/api/users", { cookie: admin, json: body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect((await readJson<ErrorBody>(response)).issues?.length).toBeGreaterThan(0);
    }
  });
});
