import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { formatInitialAdminNotice, serverLogFile } from "../src/index.js";
import {
  type ErrorBody,
  login,
  readJson,
  request,
  sessionCookieFrom,
  startTestServer,
  tempDataRoot,
  type UserBody,
} from "./helpers.js";

describe("the first admin", () => {
  it("is created on first start with a random password that must be changed", async () => {
    const dataRoot = await tempDataRoot();
    const server = await startTestServer({ dataRoot });
    const initial = server.initialAdmin!;
    expect(initial).toMatchObject({ username: "admin", created: true });
    expect(initial.password.length).toBeGreaterThanOrEqual(20);
    const notice = formatInitialAdminNotice(initial);
    expect(notice).toContain(initial.password);
    expect(notice).toContain("admin");

    const cookie = await login(server.url, "admin", initial.password);
    const me = await request(server.url, "/api/auth/me", { cookie });
    expect(me.status).toBe(200);
    expect((await readJson<UserBody>(me)).user).toMatchObject({
      username: "admin",
      role: "admin",
      must_change_password: true,
    });

    // Until the password is changed, only me / password / logout work.
    const blocked = await request(server.url, "/api/tokens", { cookie });
    expect(blocked.status).toBe(403);
    expect(await blocked.json()).toMatchObject({ error: "password_change_required" });

    const changed = await request(server.url, "/api/auth/password", {
      cookie,
      json: { current_password: initial.password, new_password: "my own admin password" },
    });
    expect(changed.status).toBe(204);
    const after = await request(server.url, "/api/auth/me", { cookie });
    expect((await readJson<UserBody>(after)).user.must_change_password).toBe(false);
    expect((await request(server.url, "/api/tokens", { cookie })).status).toBe(200);

    const old = await request(server.url, "/api/auth/login", {
      json: { username: "admin", password: initial.password },
    });
    expect(old.status).toBe(401);
    expect(await login(server.url, "admin", "my own admin password")).toMatch(/\S{20,}/);

    // The password never reaches the log.
    await server.close();
    const log = await readFile(serverLogFile(dataRoot), "utf8");
    expect(log).not.toContain(initial.password);
    expect(log).not.toContain("my own admin password");

    // Once changed, a restart prints nothing.
    const again = await startTestServer({ dataRoot });
    expect(again.initialAdmin).toBeUndefined();
    expect(await login(again.url, "admin", "my own admin password")).toBeTruthy();
  });

  it("is printed again on every start until changed, and the printed password is the one that works", async () => {
    const dataRoot = await tempDataRoot();
    const first = await startTestServer({ dataRoot });
    const firstPassword = first.initialAdmin!.password;
    await first.close();

    const second = await startTestServer({ dataRoot });
    expect(second.initialAdmin).toMatchObject({ username: "admin", created: false });
    expect(second.initialAdmin!.password).not.toBe(firstPassword);
    const stale = await request(second.url, "/api/auth/login", {
      json: { username: "admin", password: firstPassword },
    });
    expect(stale.status).toBe(401);
    const fresh = await request(second.url, "/api/auth/login", {
      json: { username: "Admin", password: second.initialAdmin!.password },
    });
    expect(fresh.status).toBe(200);
    expect(sessionCookieFrom(fresh)).toBeTruthy();
  });

  it("must give the right current password and a valid new one", async () => {
    const server = await startTestServer();
    const initial = server.initialAdmin!.password;
    const cookie = await login(server.url, "admin", initial);
    const wrong = await request(server.url, "/api/auth/password", {
      cookie,
      json: { current_password: "not it at all", new_password: "a brand new password" },
    });
    expect(wrong.status).toBe(403);
    expect(await wrong.json()).toMatchObject({ error: "wrong_password" });

    const short = await request(server.url, "/api/auth/password", {
      cookie,
      json: { current_password: initial, new_password: "short" },
    });
    expect(short.status).toBe(400);
    expect((await readJson<ErrorBody>(short)).issues?.[0].path).toBe("body.new_password");

    const same = await request(server.url, "/api/auth/password", {
      cookie,
      json: { current_password: initial, new_password: initial },
    });
    expect(same.status).toBe(400);
  });

  it("ends the user's other browser sessions when the password changes", async () => {
    const server = await startTestServer();
    const initial = server.initialAdmin!.password;
    const laptop = await login(server.url, "admin", initial);
    const phone = await login(server.url, "admin", initial);
    const changed = await request(server.url, "/api/auth/password", {
      cookie: laptop,
      json: { current_password: initial, new_password: "a brand new password" },
    });
    expect(changed.status).toBe(204);
    expect((await request(server.url, "/api/auth/me", { cookie: laptop })).status).toBe(200);
    expect((await request(server.url, "/api/auth/me", { cookie: phone })).status).toBe(401);
  });
});
