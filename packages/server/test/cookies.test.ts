import { describe, expect, it } from "vitest";
import { login, request, sessionCookieFrom, startTestServer } from "./helpers.js";

function loginCookieLine(response: Response): string {
  return response.headers.getSetCookie().find((line) => line.startsWith("penguin_session="))!;
}

describe("the session cookie", () => {
  it("is HttpOnly, SameSite=Strict, Path=/ and lasts a bounded time", async () => {
    const server = await startTestServer();
    const response = await request(server.url, "/api/auth/login", {
      json: { username: "admin", password: server.initialAdmin!.password },
    });
    expect(response.status).toBe(200);
    const line = loginCookieLine(response);
    const attributes = line.split(";").map((part) => part.trim().toLowerCase());
    expect(attributes).toContain("httponly");
    expect(attributes).toContain("samesite=strict");
    expect(attributes).toContain("path=/");
    expect(attributes.some((part) => /^max-age=\d+$/.test(part))).toBe(true);
    // Plain http on loopback by default: a Secure cookie would never come back.
    expect(attributes).not.toContain("secure");
    expect(sessionCookieFrom(response).length).toBeGreaterThanOrEqual(40);
  });

  it("is Secure when the server is configured for https", async () => {
    const server = await startTestServer({ secureCookies: true });
    const response = await request(server.url, "/api/auth/login", {
      json: { username: "admin", password: server.initialAdmin!.password },
    });
    expect(loginCookieLine(response).toLowerCase()).toMatch(/;\s*secure(;|$)/);
  });

  it("stops working after logout, which also clears it", async () => {
    const server = await startTestServer();
    const cookie = await login(server.url, "admin", server.initialAdmin!.password);
    expect((await request(server.url, "/api/auth/me", { cookie })).status).toBe(200);
    const logout = await request(server.url, "/api/auth/logout", { method: "POST", cookie });
    expect(logout.status).toBe(204);
    expect(loginCookieLine(logout)).toMatch(/^penguin_session=;.*max-age=0/i);
    expect((await request(server.url, "/api/auth/me", { cookie })).status).toBe(401);
  });

  it("expires after the session lifetime", async () => {
    let clock = Date.parse("2030-01-01T00:00:00Z");
    const server = await startTestServer({ sessionTtlMs: 60_000, now: () => new Date(clock) });
    const cookie = await login(server.url, "admin", server.initialAdmin!.password);
    clock += 59_000;
    expect((await request(server.url, "/api/auth/me", { cookie })).status).toBe(200);
    clock += 2_000;
    expect((await request(server.url, "/api/auth/me", { cookie })).status).toBe(401);
  });
});
