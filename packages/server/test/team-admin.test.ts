import { describe, expect, it } from "vitest";
import {
  adminSession,
  type ErrorBody,
  login,
  memberSession,
  readJson,
  request,
  startTestServer,
} from "./helpers.js";

interface ListedUser {
  id: string;
  username: string;
  disabled: boolean;
  must_change_password: boolean;
  last_login_at: string | null;
}

async function usersOf(url: string, cookie: string): Promise<ListedUser[]> {
  const response = await request(url, "/api/users", { cookie });
  expect(response.status).toBe(200);
  return (await readJson<{ users: ListedUser[] }>(response)).users;
}

async function userId(url: string, cookie: string, username: string): Promise<string> {
  const user = (await usersOf(url, cookie)).find((entry) => entry.username === username);
  if (!user) throw new Error(`no user ${username}`);
  return user.id;
}

async function tokenOf(url: string, cookie: string, body: Record<string, unknown>): Promise<string> {
  const response = await request(url, "/api/tokens", { cookie, json: body });
  expect(response.status).toBe(201);
  return (await readJson<{ token: string }>(response)).token;
}

describe("team administration", () => {
  it("shows admins when each user last logged in", async () => {
    const server = await startTestServer();
    const admin = await adminSession(server);
    await request(server.url, "/api/users", {
      cookie: admin,
      json: { username: "nina", password: "nina-initial-1" },
    });
    const before = (await usersOf(server.url, admin)).find((user) => user.username === "nina");
    expect(before).toMatchObject({ last_login_at: null, disabled: false });

    const started = Date.now();
    await login(server.url, "nina", "nina-initial-1");
    const after = (await usersOf(server.url, admin)).find((user) => user.username === "nina");
    expect(Date.parse(after?.last_login_at ?? "")).toBeGreaterThanOrEqual(started - 1000);
  });

  it("disabling a user refuses their login, browser sessions and API tokens until enabled again", async () => {
    const server = await startTestServer();
    const admin = await adminSession(server);
    const member = await memberSession(server, admin, "omar");
    const token = await tokenOf(server.url, member, { name: "ci" });
    const id = await userId(server.url, admin, "omar");

    const disabled = await request(server.url, `/api/users/${id}`, {
      method: "PATCH",
      cookie: admin,
      json: { disabled: true },
    });
    expect(disabled.status).toBe(200);
    expect((await readJson<{ user: ListedUser }>(disabled)).user.disabled).toBe(true);

    expect((await request(server.url, "/api/auth/me", { cookie: member })).status).toBe(401);
    expect((await request(server.url, "/api/auth/me", { bearer: token })).status).toBe(401);
    const refused = await request(server.url, "/api/auth/login", {
      json: { username: "omar", password: "omar-password-1" },
    });
    expect(refused.status).toBe(403);
    expect(await readJson<ErrorBody>(refused)).toMatchObject({ error: "user_disabled" });
    // A wrong password still reads as a wrong password: being disabled is told only to the owner.
    const wrong = await request(server.url, "/api/auth/login", {
      json: { username: "omar", password: "nope" },
    });
    expect(wrong.status).toBe(401);

    const enabled = await request(server.url, `/api/users/${id}`, {
      method: "PATCH",
      cookie: admin,
      json: { disabled: false },
    });
    expect(enabled.status).toBe(200);
    // The token survives a disable; the browser session that was open does not.
    expect((await request(server.url, "/api/auth/me", { bearer: token })).status).toBe(200);
    expect((await request(server.url, "/api/auth/me", { cookie: member })).status).toBe(401);
    await login(server.url, "omar", "omar-password-1");
  });

  it("a password reset makes the user choose a new one and ends their sessions and tokens", async () => {
    const server = await startTestServer();
    const admin = await adminSession(server);
    const member = await memberSession(server, admin, "pia");
    const token = await tokenOf(server.url, member, { name: "laptop" });
    const id = await userId(server.url, admin, "pia");

    const reset = await request(server.url, `/api/users/${id}/password`, {
      cookie: admin,
      json: { password: "pia-reset-pass-2" },
    });
    expect(reset.status).toBe(204);
    expect((await request(server.url, "/api/auth/me", { cookie: member })).status).toBe(401);
    expect((await request(server.url, "/api/auth/me", { bearer: token })).status).toBe(401);
    await expect(login(server.url, "pia", "pia-password-1")).rejects.toThrow(/401/);
    const fresh = await login(server.url, "pia", "pia-reset-pass-2");
    const me = await readJson<{ user: ListedUser }>(
      await request(server.url, "/api/auth/me", { cookie: fresh }),
    );
    expect(me.user.must_change_password).toBe(true);
  });

  it("refuses members (403), unknown users (404), short passwords and an admin locking themselves out", async () => {
    const server = await startTestServer();
    const admin = await adminSession(server);
    const member = await memberSession(server, admin, "quinn");
    const adminId = await userId(server.url, admin, "admin");
    const memberId = await userId(server.url, admin, "quinn");

    for (const [path, method, json] of [
      [`/api/users/${adminId}`, "PATCH", { disabled: true }],
      [`/api/users/${memberId}`, "PATCH", { disabled: true }],
      [`/api/users/${adminId}/password`, "POST", { password: "taken-over-pass" }],
    ] as const) {
      const response = await request(server.url, path, { method, cookie: member, json });
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(await readJson<ErrorBody>(response)).toMatchObject({ error: "forbidden" });
    }
    expect((await usersOf(server.url, admin)).find((user) => user.id === memberId)?.disabled).toBe(false);

    const missing = await request(server.url, "/api/users/no-such-user", {
      method: "PATCH",
      cookie: admin,
      json: { disabled: true },
    });
    expect(missing.status).toBe(404);
    const missingReset = await request(server.url, "/api/users/no-such-user/password", {
      cookie: admin,
      json: { password: "long enough pass" },
    });
    expect(missingReset.status).toBe(404);

    const self = await request(server.url, `/api/users/${adminId}`, {
      method: "PATCH",
      cookie: admin,
      json: { disabled: true },
    });
    expect(self.status).toBe(400);
    const selfReset = await request(server.url, `/api/users/${adminId}/password`, {
      cookie: admin,
      json: { password: "long enough pass" },
    });
    expect(selfReset.status).toBe(400);
    const short = await request(server.url, `/api/users/${memberId}/password`, {
      cookie: admin,
      json: { password: "short" },
    });
    expect(short.status).toBe(400);
  });

  it("API tokens with an expiry are refused once it passes", async () => {
    let clock = Date.now();
    const server = await startTestServer({ now: () => new Date(clock) });
    const admin = await adminSession(server);
    const expiring = await tokenOf(server.url, admin, { name: "week", expires_in_days: 7 });
    const forever = await tokenOf(server.url, admin, { name: "forever" });
    const { tokens } = await readJson<{ tokens: { name: string; expires_at: string | null }[] }>(
      await request(server.url, "/api/tokens", { cookie: admin }),
    );
    const week = tokens.find((token) => token.name === "week");
    expect(Date.parse(week?.expires_at ?? "") - clock).toBe(7 * 24 * 60 * 60 * 1000);
    expect(tokens.find((token) => token.name === "forever")?.expires_at).toBeNull();

    clock += 6 * 24 * 60 * 60 * 1000;
    expect((await request(server.url, "/api/auth/me", { bearer: expiring })).status).toBe(200);
    clock += 2 * 24 * 60 * 60 * 1000;
    expect((await request(server.url, "/api/auth/me", { bearer: expiring })).status).toBe(401);
    expect((await request(server.url, "/api/auth/me", { bearer: forever })).status).toBe(200);

    for (const bad of [0, -1, 1.5, 5000, "7"]) {
      const response = await request(server.url, "/api/tokens", {
        bearer: forever,
        json: { name: "bad", expires_in_days: bad },
      });
      expect(response.status, String(bad)).toBe(400);
    }
  });
});
