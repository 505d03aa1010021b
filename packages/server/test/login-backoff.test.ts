import { describe, expect, it, vi } from "vitest";
import { BackoffTable } from "../src/auth/backoff-table.js";
import { addressKey, normalizeAddress, trustedProxySet } from "../src/auth/client-address.js";
import { PasswordHashGate } from "../src/auth/hash-gate.js";
import { LoginThrottle } from "../src/auth/login-throttle.js";
import { type ErrorBody, readJson, request, sessionCookieFrom, startTestServer } from "./helpers.js";

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

describe("BackoffTable", () => {
  const shape = { freeAttempts: 1, baseDelayMs: 1000, maxDelayMs: 4000, maxTracked: 100 };

  it("caps the delay and forgets a key after a quiet period", () => {
    const table = new BackoffTable(shape);
    let now = 0;
    for (let i = 0; i < 10; i++) table.recordFailure("u", now);
    expect(table.retryAfterMs("u", now)).toBe(4000);
    now += 4000;
    expect(table.retryAfterMs("u", now)).toBe(0);
    table.recordFailure("u", now);
    expect(table.retryAfterMs("u", now)).toBe(4000);
    now += 10_000;
    // Forgotten: the next failure is free again.
    table.recordFailure("u", now);
    expect(table.retryAfterMs("u", now)).toBe(0);
  });

  it("makes room by dropping records whose block is over, never one still in force", () => {
    const table = new BackoffTable({ ...shape, freeAttempts: 0, maxTracked: 3 });
    table.recordFailure("blocked", 0); // blocked until 1000
    table.recordFailure("b", 0);
    table.recordFailure("c", 0);
    // Every record is in force: a new key is refused, nothing is dropped.
    expect(table.recordFailure("d", 500)).toBe(false);
    expect(table.retryAfterMs("blocked", 500)).toBe(500);
    expect(table.soonestReleaseMs(500)).toBe(500);
    // Once the blocks are over, the least recently failed record makes room.
    expect(table.recordFailure("d", 1000)).toBe(true);
    expect(table.size).toBe(3);
    expect(table.retryAfterMs("d", 1000)).toBe(1000);
  });

  it("a refund takes back a failure counted in advance and lifts the block it started", () => {
    const table = new BackoffTable({ ...shape, freeAttempts: 2 });
    table.recordFailure("a", 0);
    table.recordFailure("a", 0);
    table.recordFailure("a", 0);
    expect(table.retryAfterMs("a", 0)).toBe(1000);
    table.refund("a");
    expect(table.retryAfterMs("a", 0)).toBe(0);
    // The two earlier failures still count: the next one blocks at once.
    table.recordFailure("a", 0);
    expect(table.retryAfterMs("a", 0)).toBe(1000);
  });
});

describe("LoginThrottle", () => {
  it("keeps a blocked username blocked after 10,000 other usernames failed", () => {
    // Default username table size (10,000); every flood attempt from its own address so the
    // address backoff does not stop the flood first.
    // The address table is made big enough to still hold the first address's failures, for
    // which the username's block holds.
    const throttle = new LoginThrottle({ freeAttempts: 2, baseDelayMs: 60_000, maxTrackedAddresses: 20_000 });
    const now = 0;
    for (let i = 0; i < 3; i++) {
      expect(throttle.admit({ username: "admin", address: "198.51.100.1" }, now)).toEqual({ admitted: true });
    }
    expect(throttle.admit({ username: "admin", address: "198.51.100.1" }, now)).toMatchObject({
      admitted: false,
      reason: "username",
    });
    // Each throwaway username fails once (free, so not blocked): the table makes room by dropping
    // those, and never the oldest record, admin's, whose block is in force.
    for (let i = 0; i < 12_000; i++) {
      const verdict = throttle.admit(
        { username: `throwaway-${i}`, address: `10.0.${i >> 8}.${i & 255}` },
        now,
      );
      expect(verdict.admitted).toBe(true);
    }
    expect(throttle.admit({ username: "admin", address: "198.51.100.1" }, now)).toMatchObject({
      admitted: false,
      reason: "username",
      retryAfterMs: 60_000,
    });
  });

  it("checks a blocked username's password once from an address with no failures on record", () => {
    const throttle = new LoginThrottle({ freeAttempts: 1, addressFreeAttempts: 100, baseDelayMs: 60_000 });
    const attacker = { username: "admin", address: "198.51.100.1" };
    expect(throttle.admit(attacker, 0).admitted).toBe(true);
    expect(throttle.admit(attacker, 0).admitted).toBe(true);
    expect(throttle.admit(attacker, 0)).toMatchObject({ admitted: false, reason: "username" });

    // The real user, elsewhere, gets the password checked; a right one clears the username.
    const owner = { username: "admin", address: "203.0.113.9" };
    expect(throttle.admit(owner, 0).admitted).toBe(true);
    throttle.succeeded(owner);
    expect(throttle.usernameRetryAfterMs("admin", 0)).toBe(0);

    // A wrong guess from a fresh address is checked once, then that address is held back too.
    expect(throttle.admit(attacker, 0).admitted).toBe(true);
    expect(throttle.admit(attacker, 0).admitted).toBe(true);
    const fresh = { username: "admin", address: "192.0.2.44" };
    expect(throttle.admit(fresh, 0).admitted).toBe(true);
    expect(throttle.admit(fresh, 0)).toMatchObject({ admitted: false, reason: "username" });
  });

  it("counts failures per address across usernames, and a success does not reset them", () => {
    const throttle = new LoginThrottle({ freeAttempts: 5, addressFreeAttempts: 3, baseDelayMs: 1000 });
    const from = (username: string) => ({ username, address: "192.0.2.7" });
    for (const name of ["a", "b", "c"]) expect(throttle.admit(from(name), 0).admitted).toBe(true);
    // A right password refunds only its own attempt.
    expect(throttle.admit(from("mine"), 0).admitted).toBe(true);
    throttle.succeeded(from("mine"));
    expect(throttle.admit(from("d"), 0).admitted).toBe(true);
    expect(throttle.admit(from("e"), 0)).toMatchObject({
      admitted: false,
      reason: "address",
      retryAfterMs: 1000,
    });
    // Another address is not affected.
    expect(throttle.admit({ username: "e", address: "192.0.2.8" }, 0).admitted).toBe(true);
  });
});

describe("client address keys", () => {
  it("unwrap IPv4-mapped IPv6 and group IPv6 by /64", () => {
    expect(addressKey("::ffff:192.0.2.1")).toBe("192.0.2.1");
    expect(addressKey("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:db8:1:2:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64");
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
    expect(normalizeAddress("::ffff:127.0.0.1")).toBe("127.0.0.1");
    expect(normalizeAddress("2001:DB8::1")).toBe("2001:db8:0:0:0:0:0:1");
  });

  it("refuse a trusted proxy that is not an IP address", () => {
    expect(() => trustedProxySet(["proxy.example"])).toThrow(
      /trusted proxy "proxy.example" is not an IP address/,
    );
    expect([...trustedProxySet(["::ffff:10.0.0.1"])]).toEqual(["10.0.0.1"]);
  });
});

describe("login failures per address over HTTP", () => {
  const attempt = (url: string, username: string, headers: Record<string, string> = {}) =>
    request(url, "/api/auth/login", { json: { username, password: "wrong password" }, headers });

  it("a flood of distinct usernames from one address gets 429s", async () => {
    const server = await startTestServer({
      loginThrottle: { freeAttempts: 5, addressFreeAttempts: 4, baseDelayMs: 60_000 },
    });
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await attempt(server.url, `nobody-${i}`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    const refused = await attempt(server.url, "admin");
    expect(refused.status).toBe(429);
    // The block began with the fifth failure; on a loaded machine (or a database across a socket)
    // a second or two passes before this attempt, and Retry-After counts down the remaining wait.
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(55);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await readJson<ErrorBody>(refused)).toMatchObject({
      error: "too_many_attempts",
      message: expect.stringMatching(/from this address/),
    });
  });

  it("ignores X-Forwarded-For unless the peer is a trusted proxy", async () => {
    const options = { loginThrottle: { addressFreeAttempts: 1, baseDelayMs: 60_000 } };
    const direct = await startTestServer(options);
    expect((await attempt(direct.url, "x1", { "x-forwarded-for": "192.0.2.1" })).status).toBe(401);
    expect((await attempt(direct.url, "x2", { "x-forwarded-for": "192.0.2.1" })).status).toBe(401);
    // A forged header does not make a new client.
    expect((await attempt(direct.url, "x3", { "x-forwarded-for": "192.0.2.99" })).status).toBe(429);

    const proxied = await startTestServer({ ...options, trustedProxies: ["127.0.0.1"] });
    const from = (client: string) => ({ "x-forwarded-for": `203.0.113.50, ${client}` });
    expect((await attempt(proxied.url, "y1", from("192.0.2.1"))).status).toBe(401);
    expect((await attempt(proxied.url, "y2", from("192.0.2.1"))).status).toBe(401);
    expect((await attempt(proxied.url, "y3", from("192.0.2.1"))).status).toBe(429);
    // Behind the proxy, another client is another address; the leftmost entry is the client's
    // own claim and is not what counts.
    expect((await attempt(proxied.url, "y4", from("192.0.2.2"))).status).toBe(401);
  });

  it("lets the real user in from a clean address while a one-failure-per-block flood keeps the username blocked", async () => {
    const server = await startTestServer({
      trustedProxies: ["127.0.0.1"],
      loginThrottle: { freeAttempts: 2, addressFreeAttempts: 1000, baseDelayMs: 60_000 },
    });
    const password = server.initialAdmin!.password;
    const from = (client: string, pw: string) =>
      request(server.url, "/api/auth/login", {
        json: { username: "admin", password: pw },
        headers: { "x-forwarded-for": client },
      });
    const flood: number[] = [];
    for (let i = 0; i < 6; i++) flood.push((await from("198.51.100.1", `guess ${i}`)).status);
    expect(flood).toEqual([401, 401, 401, 429, 429, 429]);
    // The flood's own address stays throttled, even with the right password.
    expect((await from("198.51.100.1", password)).status).toBe(429);

    // The real user, from an address with no failure on record, gets in.
    const owner = await from("203.0.113.9", password);
    expect(owner.status).toBe(200);
    sessionCookieFrom(owner);

    // A wrong password from a clean address is checked once; after it, that address is blocked too.
    for (let i = 0; i < 3; i++) expect((await from("198.51.100.1", `again ${i}`)).status).toBe(401);
    expect((await from("192.0.2.44", "one guess")).status).toBe(401);
    const second = await from("192.0.2.44", password);
    expect(second.status).toBe(429);
    expect(await readJson<ErrorBody>(second)).toMatchObject({
      error: "too_many_attempts",
      message: expect.stringMatching(/for this user/),
    });
  });

  it("a blocked username stays blocked while a flood fills the username table", async () => {
    const server = await startTestServer({
      loginThrottle: {
        freeAttempts: 0,
        addressFreeAttempts: 1000,
        baseDelayMs: 60_000,
        maxTrackedUsernames: 3,
      },
    });
    const password = server.initialAdmin!.password;
    expect((await attempt(server.url, "admin")).status).toBe(401);
    const flood: number[] = [];
    for (let i = 0; i < 6; i++) flood.push((await attempt(server.url, `throwaway-${i}`)).status);
    expect(flood).toEqual([401, 401, 429, 429, 429, 429]);
    const stillBlocked = await request(server.url, "/api/auth/login", {
      json: { username: "admin", password },
    });
    expect(stillBlocked.status).toBe(429);
    expect(await readJson<ErrorBody>(stillBlocked)).toMatchObject({
      message: expect.stringMatching(/for this user/),
    });
  });
});

describe("the password hashing gate", () => {
  it("answers 429 server_busy with Retry-After when every slot and the queue are taken", async () => {
    const gate = new PasswordHashGate({ maxConcurrent: 1, maxQueued: 1 });
    const server = await startTestServer({ passwordHashing: gate });
    const password = server.initialAdmin!.password;
    const held = gate.enter()!;
    await held.ready;
    const queued = request(server.url, "/api/auth/login", { json: { username: "admin", password } });
    await vi.waitFor(() => expect(gate.queued).toBe(1));

    for (let i = 0; i < 3; i++) {
      const busy = await request(server.url, "/api/auth/login", { json: { username: "admin", password } });
      expect(busy.status).toBe(429);
      expect(busy.headers.get("retry-after")).toBe("1");
      expect(await readJson<ErrorBody>(busy)).toMatchObject({ error: "server_busy" });
    }
    held.release();
    expect((await queued).status).toBe(200);
    expect(gate.active).toBe(0);
    // Busy refusals were not counted as failures of the username.
    expect(
      (await request(server.url, "/api/auth/login", { json: { username: "admin", password } })).status,
    ).toBe(200);
  });

  it("gives a slot back when a queued caller leaves before its turn", async () => {
    const gate = new PasswordHashGate({ maxConcurrent: 1, maxQueued: 1 });
    const first = gate.enter()!;
    const second = gate.enter()!;
    expect(gate.enter()).toBeUndefined();
    second.release();
    expect(gate.queued).toBe(0);
    const third = gate.enter()!;
    let thirdReady = false;
    void third.ready.then(() => {
      thirdReady = true;
    });
    first.release();
    await third.ready;
    expect(thirdReady).toBe(true);
    expect(gate.active).toBe(1);
    third.release();
    expect(gate.active).toBe(0);
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
