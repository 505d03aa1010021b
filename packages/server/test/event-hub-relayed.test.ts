import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { EventHub, type HubEvent, RESYNC_REQUIRED, SERVER_EVENT, streamChannel } from "../src/index.js";
import { SseClient } from "./sse-client.js";

// Events relayed from another instance keep the id they have there, so a client can move between
// instances with its Last-Event-ID: the hub it reaches resumes after that id when it buffered the
// event, and otherwise the stream fetches the gap from the instance that has it.

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

type FetchGap = (lastEventId: string) => Promise<readonly HubEvent[] | undefined>;

/** GET /events/:channel over a real `streamSSE` endpoint, with the stream's gap fetcher. */
async function serveHub(hub: EventHub, fetchGap?: FetchGap): Promise<string> {
  const app = new Hono();
  app.get("/events/:channel", (c) => streamChannel(c, hub, c.req.param("channel"), { fetchGap }));
  const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  cleanups.push(async () => {
    hub.close();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      if ("closeAllConnections" in server) server.closeAllConnections();
    });
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function connect(url: string, channel: string, lastEventId?: string): Promise<SseClient> {
  const client = await SseClient.connect(`${url}/events/${channel}`, lastEventId);
  cleanups.push(() => client.close());
  return client;
}

async function subscribed(hub: EventHub, channel: string, count = 1): Promise<void> {
  while (hub.stats(channel).subscribers < count) await new Promise((resolve) => setImmediate(resolve));
}

const data = (n: number) => JSON.stringify({ n });
const numbers = (client: SseClient) =>
  client.events
    .filter((event) => event.event === undefined)
    .map((event) => JSON.parse(event.data).n as number);

/** `a` publishes 1..count on `channel`, and `b` receives them as its relay would hand them over. */
function publishAndRelay(a: EventHub, b: EventHub, channel: string, from: number, to: number): HubEvent[] {
  const published: HubEvent[] = [];
  for (let n = from; n <= to; n++) {
    const event = a.publish(channel, { data: data(n) });
    b.publishRelayed(channel, { data: event.data }, event.id);
    published.push(event);
  }
  return published;
}

describe("relayed events in the hub", () => {
  it("keeps the publisher's ids, so a client moving from A to B resumes after its last event", async () => {
    const a = new EventHub({ epoch: "aaaa" });
    const b = new EventHub({ epoch: "bbbb" });
    b.subscribe("s").close(); // B has the channel open: someone watches it there.
    const url = await serveHub(b);
    const sent = publishAndRelay(a, b, "s", 1, 5);
    expect(b.lastEventId("s")).toBe("aaaa-5");
    // B's own events go on with its own ids, between the relayed ones.
    b.publish("s", { data: data(6) });
    publishAndRelay(a, b, "s", 7, 7);

    const moved = await connect(url, "s", sent[2].id);
    await moved.waitForEvents(4);
    expect(numbers(moved)).toEqual([4, 5, 6, 7]);
    expect(moved.events.map((event) => event.id)).toEqual(["aaaa-4", "aaaa-5", "bbbb-6", "aaaa-6"]);
  });

  it("answers replay with the events after an id, or why it cannot", () => {
    const a = new EventHub({ epoch: "aaaa" });
    const b = new EventHub({ epoch: "bbbb", maxEvents: 3 });
    b.subscribe("s").close();
    publishAndRelay(a, b, "s", 1, 5); // B keeps aaaa-3 .. aaaa-5
    expect(b.replay("s", "aaaa-4")).toEqual([expect.objectContaining({ id: "aaaa-5", data: data(5) })]);
    expect(b.replay("s", "aaaa-5")).toEqual([]);
    expect(b.replay("s", "aaaa-1")).toBe("unknown_epoch"); // left B's buffer
    expect(b.replay("s", "not an id")).toBe("invalid_id");
    expect(b.replay("elsewhere", "aaaa-4")).toBe("unknown_epoch"); // never open on B
    expect(a.replay("s", "aaaa-9")).toBe("invalid_id"); // not issued yet
  });

  it("gives a relayed event whose id is malformed or already buffered an id of its own", () => {
    const b = new EventHub({ epoch: "bbbb" });
    b.subscribe("s").close();
    expect(b.publishRelayed("s", { data: data(1) }, "aaaa-1")?.id).toBe("aaaa-1");
    expect(b.publishRelayed("s", { data: data(2) }, "aaaa-1")?.id).toBe("bbbb-2");
    expect(b.publishRelayed("s", { data: data(3) }, "<script>")?.id).toBe("bbbb-3");
    expect(b.publishRelayed("closed-here", { data: data(4) }, "aaaa-2")).toBeUndefined();
  });
});

describe("resyncAll", () => {
  it("gives every subscriber a resync_required next, then the events after it", async () => {
    const hub = new EventHub({ epoch: "bbbb" });
    const url = await serveHub(hub);
    const one = await connect(url, "s1");
    const two = await connect(url, "s2");
    await subscribed(hub, "s1");
    await subscribed(hub, "s2");
    hub.publish("s1", { data: data(1) });
    await one.waitForEvents(1);
    hub.resyncAll("relay_interrupted");
    for (const client of [one, two]) {
      await client.until((c) => c.events.some((event) => event.event === SERVER_EVENT));
      const resync = client.events.find((event) => event.event === SERVER_EVENT);
      expect(JSON.parse(resync?.data ?? "")).toEqual({ type: RESYNC_REQUIRED, reason: "relay_interrupted" });
    }
    hub.publish("s2", { data: data(2) });
    await two.until(() => numbers(two).length === 1);
    expect(numbers(two)).toEqual([2]);
  });
});

describe("a stream whose Last-Event-ID another instance issued", () => {
  it("writes the gap fetched from that instance, then the live events, each once", async () => {
    const a = new EventHub({ epoch: "aaaa" });
    const b = new EventHub({ epoch: "bbbb" });
    const [first] = publishAndRelay(a, b, "s", 1, 1); // B does not have the channel open yet
    publishAndRelay(a, b, "s", 2, 4);
    let relayDuringFetch = () => {};
    const url = await serveHub(b, async (lastEventId) => {
      // The events published while the gap is on its way reach B by its relay too.
      relayDuringFetch();
      const gap = a.replay("s", lastEventId);
      return typeof gap === "string" ? undefined : gap;
    });
    relayDuringFetch = () => {
      publishAndRelay(a, b, "s", 5, 6);
    };

    const moved = await connect(url, "s", first.id);
    await moved.waitForEvents(5);
    await subscribed(b, "s");
    publishAndRelay(a, b, "s", 7, 7);
    await moved.waitForEvents(6);
    expect(numbers(moved)).toEqual([2, 3, 4, 5, 6, 7]);
    expect(moved.events.some((event) => event.event === SERVER_EVENT)).toBe(false);
  });

  it("sends resync_required (unknown_epoch) when no instance has the gap, then goes on live", async () => {
    const b = new EventHub({ epoch: "bbbb" });
    const url = await serveHub(b, async () => undefined);
    const lost = await connect(url, "s", "gone-7");
    const [resync] = await lost.waitForEvents(1);
    expect(resync.event).toBe(SERVER_EVENT);
    expect(JSON.parse(resync.data)).toEqual({ type: RESYNC_REQUIRED, reason: "unknown_epoch" });
    await subscribed(b, "s");
    b.publish("s", { data: data(1) });
    await lost.waitForEvents(2);
    expect(numbers(lost)).toEqual([1]);
  });
});
