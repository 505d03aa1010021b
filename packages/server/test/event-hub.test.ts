import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { EventHub, type HubEvent, RESYNC_REQUIRED, SERVER_EVENT, streamChannel } from "../src/index.js";
import { SseClient } from "./sse-client.js";

interface Served {
  url: string;
  /** The hub behind the endpoint; replaceable to simulate a server restart (a new epoch). */
  hub: EventHub;
}

const servers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (servers.length > 0) await servers.pop()!();
});

/** A real `streamSSE` endpoint over the hub: GET /events/:channel, on 127.0.0.1 and a free port. */
async function serveHub(hub: EventHub, heartbeatMs = 60_000): Promise<Served> {
  const served: Served = { url: "", hub };
  const app = new Hono();
  app.get("/events/:channel", (c) => streamChannel(c, served.hub, c.req.param("channel"), { heartbeatMs }));
  const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  served.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clients: SseClient[] = [];
  servers.push(async () => {
    served.hub.close();
    await Promise.all(clients.map((client) => client.close()));
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      if ("closeAllConnections" in server) server.closeAllConnections();
    });
  });
  return served;
}

async function connect(served: Served, channel: string, lastEventId?: string): Promise<SseClient> {
  const client = await SseClient.connect(`${served.url}/events/${channel}`, lastEventId);
  servers.push(() => client.close());
  return client;
}

/** Waits until the hub has registered the client's subscription, so a publish cannot race the connect. */
async function subscribed(hub: EventHub, channel: string, count = 1): Promise<void> {
  while (hub.stats(channel).subscribers < count) await new Promise((resolve) => setImmediate(resolve));
}

function publishNumbers(hub: EventHub, channel: string, from: number, to: number): HubEvent[] {
  const published: HubEvent[] = [];
  for (let n = from; n <= to; n++) published.push(hub.publish(channel, { data: JSON.stringify({ n }) }));
  return published;
}

const numbers = (client: SseClient) =>
  client.events
    .filter((event) => event.event === undefined)
    .map((event) => JSON.parse(event.data).n as number);

describe("EventHub over streamSSE", () => {
  it("streams live events with ids <epoch>-<seq>, names and multi-line data intact", async () => {
    const hub = new EventHub({ epoch: "abc123" });
    const served = await serveHub(hub);
    const client = await connect(served, "s1");
    expect(client.status).toBe(200);
    await subscribed(hub, "s1");
    hub.publish("s1", { data: '{"type":"model_msg"}' });
    hub.publish("s1", { event: SERVER_EVENT, data: '{"type":"task_state","state":"running"}' });
    hub.publish("s1", { data: "line one\nline two" });
    hub.publish("other", { data: "not for s1" });
    const events = await client.waitForEvents(3);
    expect(events.map((event) => event.id)).toEqual(["abc123-1", "abc123-2", "abc123-3"]);
    expect(events[0]).toMatchObject({ data: '{"type":"model_msg"}' });
    expect(events[0].event).toBeUndefined();
    expect(events[1]).toMatchObject({ event: SERVER_EVENT, data: '{"type":"task_state","state":"running"}' });
    expect(events[2].data).toBe("line one\nline two");
    expect(hub.lastEventId("s1")).toBe("abc123-3");
    expect(hub.lastEventId("other")).toBe("abc123-1");
  });

  it("replays the gap after a reconnect with Last-Event-ID, losing nothing", async () => {
    const hub = new EventHub();
    const served = await serveHub(hub);
    const first = await connect(served, "s");
    await subscribed(hub, "s");
    publishNumbers(hub, "s", 1, 3);
    await first.waitForEvents(3);
    const resumeFrom = first.lastEventId();
    await first.close();

    publishNumbers(hub, "s", 4, 6); // while nobody listens
    const second = await connect(served, "s", resumeFrom);
    await second.waitForEvents(3);
    publishNumbers(hub, "s", 7, 8); // live again
    await second.waitForEvents(5);
    expect(numbers(second)).toEqual([4, 5, 6, 7, 8]);
    expect(second.events.some((event) => event.event === SERVER_EVENT)).toBe(false);
  });

  it("loses nothing across many reconnects while events keep coming", async () => {
    const hub = new EventHub();
    const served = await serveHub(hub);
    const total = 600;
    const received: number[] = [];
    let published = 0;
    let lastId: string | undefined;
    for (let round = 0; published < total; round++) {
      const client = await connect(served, "busy", lastId);
      await subscribed(hub, "busy");
      // Publish in bursts, some while connected, and drop the connection mid-stream.
      const burst = Math.min(total - published, 50 + round * 7);
      publishNumbers(hub, "busy", published + 1, published + burst);
      published += burst;
      await client.waitForEvents(Math.ceil(burst / 2));
      await client.close();
      received.push(...numbers(client));
      lastId = client.lastEventId();
      publishNumbers(hub, "busy", published + 1, Math.min(total, published + 5)); // while disconnected
      published = Math.min(total, published + 5);
    }
    const last = await connect(served, "busy", lastId);
    await last.until(() => received.length + numbers(last).length >= total);
    received.push(...numbers(last));
    expect(received).toEqual(Array.from({ length: total }, (_, i) => i + 1));
  });

  it("sends resync_required first when the gap has left the buffer, then goes on live", async () => {
    const hub = new EventHub({ maxEvents: 5 });
    const served = await serveHub(hub);
    const first = await connect(served, "s");
    await subscribed(hub, "s");
    publishNumbers(hub, "s", 1, 2);
    await first.waitForEvents(2);
    await first.close();

    const missed = publishNumbers(hub, "s", 3, 12); // 3..7 are evicted
    const second = await connect(served, "s", first.lastEventId());
    const [resync] = await second.waitForEvents(1);
    expect(resync.event).toBe(SERVER_EVENT);
    expect(JSON.parse(resync.data)).toEqual({ type: RESYNC_REQUIRED, reason: "gap_too_old" });
    // Its id is the newest event's, so a reconnect after the refetch resumes from there.
    expect(resync.id).toBe(missed[missed.length - 1].id);
    await subscribed(hub, "s");
    publishNumbers(hub, "s", 13, 13);
    await second.waitForEvents(2);
    expect(numbers(second)).toEqual([13]);
  });

  it("sends resync_required for an id from another server process or a malformed id", async () => {
    const before = new EventHub();
    const served = await serveHub(before);
    const client = await connect(served, "s");
    await subscribed(before, "s");
    publishNumbers(before, "s", 1, 1);
    await client.waitForEvents(1);
    await client.close();

    // The server restarts: a new hub with a new epoch, whose seq numbers start over.
    const after = new EventHub();
    expect(after.epoch).not.toBe(before.epoch);
    served.hub = after;
    publishNumbers(after, "s", 1, 3);
    const resumed = await connect(served, "s", client.lastEventId());
    const [resync] = await resumed.waitForEvents(1);
    expect(JSON.parse(resync.data)).toEqual({ type: RESYNC_REQUIRED, reason: "unknown_epoch" });
    expect(resync.id).toBe(`${after.epoch}-3`);

    for (const bad of ["garbage", `${after.epoch}-999`, `${after.epoch}-1-2`, "-1"]) {
      const stray = await connect(served, "s", bad);
      const [event] = await stray.waitForEvents(1);
      expect(JSON.parse(event.data), bad).toEqual({ type: RESYNC_REQUIRED, reason: "invalid_id" });
      await stray.close();
    }
  });

  it("after a channel was closed and opened again, an id from before the close gets resync_required", async () => {
    const hub = new EventHub({ epoch: "e1" });
    const served = await serveHub(hub);
    publishNumbers(hub, "s", 1, 3);
    hub.closeChannel("s");
    const reopened = publishNumbers(hub, "s", 101, 105);
    // The new lifetime continues the numbering, so no id of it repeats one of the earlier lifetime.
    expect(reopened.map((event) => event.id)).toEqual(["e1-4", "e1-5", "e1-6", "e1-7", "e1-8"]);

    const stale = await connect(served, "s", "e1-2");
    const [resync] = await stale.waitForEvents(1);
    expect(resync.event).toBe(SERVER_EVENT);
    expect(JSON.parse(resync.data)).toEqual({ type: RESYNC_REQUIRED, reason: "gap_too_old" });
    expect(resync.id).toBe("e1-8");
    expect(numbers(stale)).toEqual([]);

    // A client that had seen the whole earlier lifetime misses nothing: it gets all of the new one.
    const current = await connect(served, "s", "e1-3");
    await current.waitForEvents(5);
    expect(numbers(current)).toEqual([101, 102, 103, 104, 105]);
  });

  it("sends heartbeat comments while idle", async () => {
    const hub = new EventHub();
    const served = await serveHub(hub, 20);
    const client = await connect(served, "quiet");
    await client.until((c) => c.comments.length >= 2);
    expect(client.comments[0].trim()).toBe("heartbeat");
    expect(client.events).toEqual([]);
  });

  it("drops the subscription when the client goes away, and ends streams when the channel closes", async () => {
    const hub = new EventHub();
    const served = await serveHub(hub);
    const leaving = await connect(served, "s");
    const staying = await connect(served, "s");
    await subscribed(hub, "s", 2);
    await leaving.close();
    while (hub.stats("s").subscribers > 1) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(hub.stats("s").subscribers).toBe(1);

    hub.closeChannel("s");
    await staying.waitForEnd();
    expect(staying.ended).toBe(true);
    expect(hub.stats("s")).toEqual({ events: 0, bytes: 0, subscribers: 0 });
  });
});

describe("EventHub buffer", () => {
  it("keeps at most 10,000 events per channel by default", () => {
    const hub = new EventHub();
    publishNumbers(hub, "s", 1, 10_050);
    expect(hub.stats("s").events).toBe(10_000);
  });

  it("keeps at most maxBytes per channel, but always the newest event", () => {
    const hub = new EventHub({ maxBytes: 1000 });
    for (let i = 0; i < 100; i++) hub.publish("s", { data: "x".repeat(90) });
    expect(hub.stats("s").bytes).toBeLessThanOrEqual(1000);
    expect(hub.stats("s").events).toBeGreaterThan(5);
    hub.publish("s", { data: "y".repeat(5000) });
    expect(hub.stats("s").events).toBe(1);
  });

  it("tells a reader that fell behind the buffer to resync, then continues from the newest event", async () => {
    const hub = new EventHub({ maxEvents: 3 });
    const subscription = hub.subscribe("s");
    const iterator = subscription[Symbol.asyncIterator]();
    publishNumbers(hub, "s", 1, 10);
    const first = (await iterator.next()).value as HubEvent;
    expect(JSON.parse(first.data)).toEqual({ type: RESYNC_REQUIRED, reason: "gap_too_old" });
    expect(first.seq).toBe(10);
    publishNumbers(hub, "s", 11, 11);
    expect(JSON.parse(((await iterator.next()).value as HubEvent).data)).toEqual({ n: 11 });
    subscription.close();
    expect((await iterator.next()).done).toBe(true);
  });

  it("a closed channel opened again continues its numbering; a forgotten one starts above every forgotten id", async () => {
    const hub = new EventHub({ epoch: "e1", closedChannelsRemembered: 1 });
    publishNumbers(hub, "a", 1, 3);
    publishNumbers(hub, "b", 1, 2);
    hub.closeChannel("a");
    hub.closeChannel("b"); // only b is remembered now
    expect(hub.publish("b", { data: "{}" }).id).toBe("e1-3");
    // a was forgotten: it restarts above its old ids rather than at 1.
    expect(hub.publish("a", { data: "{}" }).id).toBe("e1-4");
    const subscription = hub.subscribe("a", "e1-2");
    const first = (await subscription[Symbol.asyncIterator]().next()).value as HubEvent;
    expect(JSON.parse(first.data)).toEqual({ type: RESYNC_REQUIRED, reason: "gap_too_old" });
    subscription.close();
  });

  it("rejects an epoch that could not be told apart from the sequence", () => {
    expect(() => new EventHub({ epoch: "a-b" })).toThrow(/epoch/);
  });
});
