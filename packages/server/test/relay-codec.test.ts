import { describe, expect, it } from "vitest";
import {
  encodeRelay,
  NOTIFY_PAYLOAD_MAX_BYTES,
  RelayDecoder,
  type RelayedEvent,
} from "../src/cluster/relay-codec.js";

// What crosses instances in PostgreSQL notifications (each under 8000 bytes): small events share
// one, a big one is split into parts and comes back whole, in order, whatever its characters.

const event = (channel: string, data: string, name?: string): RelayedEvent => ({
  channel,
  data,
  ...(name ? { event: name } : {}),
});

describe("the relay's notification payloads", () => {
  it("packs small events together and keeps them in order", () => {
    const events = Array.from({ length: 200 }, (_, i) =>
      event("session:s1", JSON.stringify({ n: i }), i % 2 ? "server_event" : undefined),
    );
    const payloads = encodeRelay("a", events);
    expect(payloads.length).toBeGreaterThan(1);
    expect(payloads.length).toBeLessThan(10);
    for (const payload of payloads)
      expect(Buffer.byteLength(payload)).toBeLessThanOrEqual(NOTIFY_PAYLOAD_MAX_BYTES);
    const decoder = new RelayDecoder("b");
    expect(payloads.flatMap((payload) => decoder.decode(payload))).toEqual(events);
  });

  it("splits an event bigger than a notification and joins it back, multi-byte and control characters included", () => {
    const data = JSON.stringify({ output: `${'€🐧\u0001"\\'.repeat(20_000)}end` });
    const events = [
      event("session:s1", "before"),
      event("session:s1", data),
      event("user:u1", "after", "server_event"),
    ];
    const payloads = encodeRelay("a", events);
    for (const payload of payloads)
      expect(Buffer.byteLength(payload)).toBeLessThanOrEqual(NOTIFY_PAYLOAD_MAX_BYTES);
    const decoder = new RelayDecoder("b");
    const out: RelayedEvent[] = [];
    for (const payload of payloads) {
      out.push(...decoder.decode(payload));
    }
    expect(out).toEqual(events);
    expect(decoder.pending).toBe(0);
  });

  it("ignores its own notifications and malformed ones, and forgets the parts of an event never finished", () => {
    let now = 0;
    const decoder = new RelayDecoder("a", () => now);
    expect(decoder.decode(encodeRelay("a", [event("session:s1", "mine")])[0]!)).toEqual([]);
    expect(decoder.decode("not json")).toEqual([]);
    expect(decoder.decode(JSON.stringify({ from: "b", events: [{ channel: 1, data: "x" }] }))).toEqual([]);
    const parts = encodeRelay("b", [event("session:s1", "x".repeat(50_000))]);
    decoder.decode(parts[0]!);
    expect(decoder.pending).toBe(1);
    now = 120_000;
    decoder.decode(encodeRelay("c", [event("session:s2", "y".repeat(50_000))])[0]!);
    expect(decoder.pending).toBe(1);
  });
});
