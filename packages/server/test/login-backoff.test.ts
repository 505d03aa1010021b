import { describe, expect, it } from "vitest";
import { LoginThrottle } from "../src/auth/login-throttle.js";
import { type ErrorBody, readJson, request, startTestServer } from "./helpers.js";

describe("login failures", () => {
  it("get 401, then a doubling backoff per username (429 with Retry-After), even for the right password", async () => {
    let clock = Date.parse("2030-01-01T00:00:00Z");
    const server = await startTestServer({
      now: () => new Date(clock),
      loginThrottle: { freeAttempts: 3, baseDelayMs: 10_000, maxDelayMs: 60_000 },
    });
    const password = server.initialAdmin!.password;
    const attempt = (username: string, pw: string) =>
      request(server.url, "/api/auth/login", { json: { username, password: pw } });

    for (let i = 0; i < 3; i++) {
      const wrong = await attempt("admin", "wrong password");
      expect(wrong.status).toBe(401);
      expect(await readJson<ErrorBody>(wrong)).toMatchObject({ error: "unauthorized" });
    }
    // The third failure was free; the fourth starts the backoff.
    expect((await attempt("admin", "wrong password")).status).toBe(401);
    const blocked = await attempt("admin", password);
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get("retry-after")).toBe("10");
    expect(await readJson<ErrorBody>(blocked)).toMatchObject({ error: "too_many_attempts" });

    // Other usernames are not affected (unknown ones fail normally).
    expect((await attempt("somebody", "x")).status).toBe(401);

    clock += 10_000;
    expect((await attempt("admin", "wrong again")).status).toBe(401);
    const doubled = await attempt("admin", password);
    expect(doubled.status).toBe(429);
    expect(doubled.headers.get("retry-after")).toBe("20");

    clock += 20_000;
    expect((await attempt("ADMIN", password)).status).toBe(200);
    // Success clears the record.
    expect((await attempt("admin", "wrong once more")).status).toBe(401);
    expect((await attempt("admin", password)).status).toBe(200);
  });
});

describe("LoginThrottle", () => {
  it("caps the delay and forgets a username after a quiet period", () => {
    const throttle = new LoginThrottle({ freeAttempts: 1, baseDelayMs: 1000, maxDelayMs: 4000 });
    let now = 0;
    for (let i = 0; i < 10; i++) throttle.recordFailure("u", now);
    expect(throttle.retryAfterMs("u", now)).toBe(4000);
    now += 4000;
    expect(throttle.retryAfterMs("u", now)).toBe(0);
    throttle.recordFailure("u", now);
    expect(throttle.retryAfterMs("u", now)).toBe(4000);
    now += 10_000;
    // Forgotten: the next failure is free again.
    throttle.recordFailure("u", now);
    expect(throttle.retryAfterMs("u", now)).toBe(0);
  });

  it("tracks a bounded number of usernames, dropping the oldest", () => {
    const throttle = new LoginThrottle({ freeAttempts: 0, baseDelayMs: 1000, maxTrackedUsernames: 3 });
    for (const name of ["a", "b", "c", "d"]) throttle.recordFailure(name, 0);
    expect(throttle.retryAfterMs("a", 0)).toBe(0);
    expect(throttle.retryAfterMs("d", 0)).toBe(1000);
  });
});

describe("parallel login guesses", () => {
  it("cannot all slip past the backoff while their hashes are computed", async () => {
    const server = await startTestServer({ loginThrottle: { freeAttempts: 3, baseDelayMs: 60_000 } });
    const guesses = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        request(server.url, "/api/auth/login", { json: { username: "admin", password: `guess ${i}` } }),
      ),
    );
    const statuses = guesses.map((response) => response.status);
    // Only the free attempts and the one that starts the backoff get their password checked.
    expect(statuses.filter((status) => status === 401).length).toBeLessThanOrEqual(4);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(8);
  });
});
