import { afterEach, describe, expect, it } from "vitest";
import { hashSecret } from "../src/auth/tokens.js";
import { publishServerEvent, userChannel } from "../src/runtime/channels.js";
import {
  adminSession,
  type ErrorBody,
  login,
  memberSession,
  readJson,
  request,
  startTestServer,
} from "./helpers.js";
import { eventually } from "./session-fixture.js";
import { SseClient } from "./sse-client.js";

const open: SseClient[] = [];

async function events(url: string, credential: { cookie?: string; bearer?: string }): Promise<SseClient> {
  const client = await SseClient.connect(`${url}/api/events`, credential);
  open.push(client);
  return client;
}

async function adminId(url: string, cookie: string): Promise<string> {
  return (await readJson<{ user: { id: string } }>(await request(url, "/api/auth/me", { cookie }))).user.id;
}

describe("open streams end with the credential that opened them", () => {
  it("ends the streams of a browser session when it logs out, and only those", async () => {
    const server = await startTestServer();
    const cookie = await adminSession(server);
    const other = await login(server.url, "admin", "correct horse battery staple");
    const userId = await adminId(server.url, cookie);
    const loggingOut = await events(server.url, { cookie });
    const staying = await events(server.url, { cookie: other });
    expect([loggingOut.status, staying.status]).toEqual([200, 200]);

    expect((await request(server.url, "/api/auth/logout", { method: "POST", cookie })).status).toBe(204);
    await loggingOut.waitForEnd();
    publishServerEvent(server.hub, userChannel(userId), "session_deleted", { session_id: "s1" });
    await staying.waitForEvents(1);
    expect(staying.ended).toBe(false);
    expect(loggingOut.events).toEqual([]);
    await staying.close();
  });

  it("ends the streams of an API token when it is revoked", async () => {
    const server = await startTestServer();
    const cookie = await adminSession(server);
    const created = await readJson<{ id: string; token: string }>(
      await request(server.url, "/api/tokens", { cookie, json: { name: "reader" } }),
    );
    const stream = await events(server.url, { bearer: created.token });
    expect(stream.status).toBe(200);
    const revoked = await request(server.url, `/api/tokens/${created.id}`, { method: "DELETE", cookie });
    expect(revoked.status).toBe(204);
    await stream.waitForEnd();
    expect(server.streams.count(await adminId(server.url, cookie))).toBe(0);
  });

  it("ends every other stream of the user when the password changes, and keeps the changing session's", async () => {
    const server = await startTestServer();
    const cookie = await adminSession(server);
    const userId = await adminId(server.url, cookie);
    const otherCookie = await login(server.url, "admin", "correct horse battery staple");
    const token = (
      await readJson<{ token: string }>(
        await request(server.url, "/api/tokens", { cookie, json: { name: "t" } }),
      )
    ).token;
    const mine = await events(server.url, { cookie });
    const otherSession = await events(server.url, { cookie: otherCookie });
    const byToken = await events(server.url, { bearer: token });
    const changed = await request(server.url, "/api/auth/password", {
      cookie,
      json: { current_password: "correct horse battery staple", new_password: "another long password" },
    });
    expect(changed.status).toBe(204);
    await otherSession.waitForEnd();
    await byToken.waitForEnd();
    publishServerEvent(server.hub, userChannel(userId), "session_deleted", { session_id: "s1" });
    await mine.waitForEvents(1);
    expect(otherSession.events).toEqual([]);
    expect(byToken.events).toEqual([]);
    await mine.close();
  });

  it("ends a stream whose browser session was removed by other means at the next periodic re-check", async () => {
    const server = await startTestServer({ streamCredentialRecheckMs: 100 });
    const cookie = await adminSession(server);
    const stream = await events(server.url, { cookie });
    // Removed behind the API's back (another process sharing the database, an operator's SQL).
    await server.db.deleteFrom("auth_sessions").where("id", "=", hashSecret(cookie)).execute();
    await stream.waitForEnd();
    expect(stream.events).toEqual([]);
  });

  it("delivers no event once the browser session has expired", async () => {
    let clock = Date.parse("2030-01-01T00:00:00Z");
    const server = await startTestServer({
      now: () => new Date(clock),
      sessionTtlMs: 60_000,
      // Far away: this test is about the check made on every event, not the periodic one.
      streamCredentialRecheckMs: 3_600_000,
    });
    const cookie = await adminSession(server);
    const userId = await adminId(server.url, cookie);
    const stream = await events(server.url, { cookie });
    publishServerEvent(server.hub, userChannel(userId), "session_deleted", { session_id: "before" });
    await stream.waitForEvents(1);
    clock += 61_000;
    publishServerEvent(server.hub, userChannel(userId), "session_deleted", { session_id: "after" });
    await stream.waitForEnd();
    expect(stream.events.map((event) => JSON.parse(event.data).session_id)).toEqual(["before"]);
  });
});

describe("live streams per user", () => {
  it("answers 429 too_many_streams beyond the configured number, and frees a slot when a stream ends", async () => {
    const server = await startTestServer({ maxStreamsPerUser: 2 });
    const cookie = await adminSession(server);
    const userId = await adminId(server.url, cookie);
    const first = await events(server.url, { cookie });
    const second = await events(server.url, { cookie });
    expect([first.status, second.status]).toEqual([200, 200]);
    const third = await request(server.url, "/api/events", { cookie });
    expect(third.status).toBe(429);
    expect(await readJson<ErrorBody>(third)).toMatchObject({ error: "too_many_streams" });

    // Another user is not affected.
    const member = await events(server.url, { cookie: await memberSession(server, cookie, "member") });
    expect(member.status).toBe(200);

    await first.close();
    await eventually(() => server.streams.count(userId) === 1 || undefined, "the closed stream's slot");
    const again = await events(server.url, { cookie });
    expect(again.status).toBe(200);
  });
});

afterEach(async () => {
  while (open.length > 0) await open.pop()!.close();
});
