import { randomUUID } from "node:crypto";

/**
 * "The payload must be shorter than 8000 bytes" (PostgreSQL's NOTIFY, default configuration):
 * a notification carries at most this many bytes, with room to spare for the envelope.
 */
export const NOTIFY_PAYLOAD_MAX_BYTES = 7_600;
/** A part of an event too big for one notification: base64 text, so its size in bytes is its length. */
const PART_CHARS = 6_000;
/** Parts of an unfinished event are dropped after this long (its sender died mid-event). */
export const PARTIAL_EVENT_TTL_MS = 60_000;

/** One event of a hub channel, as the instance that published it sent it to the others. */
export interface RelayedEvent {
  channel: string;
  /** The event's id on the instance that published it (none on calls between instances). */
  id?: string;
  event?: string;
  data: string;
}

/**
 * What travels in one notification: whole events, or one part of an event too big for one
 * (`part`: its id, index and count; `chunk`: base64 of a slice of its UTF-8 JSON).
 */
interface Envelope {
  /** The sending instance: it ignores its own notifications. */
  from: string;
  events?: RelayedEvent[];
  part?: { id: string; index: number; count: number; chunk: string };
}

const bytes = (text: string) => Buffer.byteLength(text, "utf8");

/**
 * The notification payloads that carry `events` in order: as many whole events per payload as
 * fit, and an event that fits in none split into parts.
 */
export function encodeRelay(from: string, events: readonly RelayedEvent[]): string[] {
  const payloads: string[] = [];
  let batch: RelayedEvent[] = [];
  const flush = () => {
    if (batch.length > 0) payloads.push(JSON.stringify({ from, events: batch } satisfies Envelope));
    batch = [];
  };
  for (const event of events) {
    const alone = JSON.stringify({ from, events: [event] } satisfies Envelope);
    if (bytes(alone) > NOTIFY_PAYLOAD_MAX_BYTES) {
      flush();
      const whole = Buffer.from(JSON.stringify(event), "utf8").toString("base64");
      const count = Math.ceil(whole.length / PART_CHARS);
      const id = randomUUID();
      for (let index = 0; index < count; index++) {
        const chunk = whole.slice(index * PART_CHARS, (index + 1) * PART_CHARS);
        payloads.push(JSON.stringify({ from, part: { id, index, count, chunk } } satisfies Envelope));
      }
      continue;
    }
    const grown = JSON.stringify({ from, events: [...batch, event] } satisfies Envelope);
    if (bytes(grown) > NOTIFY_PAYLOAD_MAX_BYTES) flush();
    batch.push(event);
  }
  flush();
  return payloads;
}

/**
 * Turns notification payloads back into events, in the order they were sent (a sender's
 * notifications arrive in the order it sent them): an event sent in parts comes out with its last
 * part. Its own notifications and malformed ones give nothing.
 */
export class RelayDecoder {
  readonly #partial = new Map<string, { chunks: string[]; received: number; startedAt: number }>();

  constructor(
    private readonly self: string,
    private readonly now: () => number = Date.now,
  ) {}

  decode(payload: string): RelayedEvent[] {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(payload) as Envelope;
    } catch {
      return [];
    }
    if (typeof envelope !== "object" || envelope === null || envelope.from === this.self) return [];
    if (Array.isArray(envelope.events)) return envelope.events.filter(isRelayedEvent);
    const part = envelope.part;
    if (!part || typeof part.chunk !== "string" || !(part.count > 0) || !(part.index >= 0)) return [];
    this.#dropStale();
    const key = `${envelope.from}/${part.id}`;
    const entry = this.#partial.get(key) ?? {
      chunks: new Array<string>(part.count),
      received: 0,
      startedAt: this.now(),
    };
    this.#partial.set(key, entry);
    if (entry.chunks[part.index] === undefined) entry.received += 1;
    entry.chunks[part.index] = part.chunk;
    if (entry.received < part.count) return [];
    this.#partial.delete(key);
    try {
      const event: unknown = JSON.parse(Buffer.from(entry.chunks.join(""), "base64").toString("utf8"));
      return isRelayedEvent(event) ? [event] : [];
    } catch {
      return [];
    }
  }

  /** Events whose parts are still awaited (for tests). */
  get pending(): number {
    return this.#partial.size;
  }

  #dropStale(): void {
    const oldest = this.now() - PARTIAL_EVENT_TTL_MS;
    for (const [key, entry] of this.#partial) if (entry.startedAt < oldest) this.#partial.delete(key);
  }
}

function isRelayedEvent(value: unknown): value is RelayedEvent {
  if (typeof value !== "object" || value === null) return false;
  const event = value as Record<string, unknown>;
  return (
    typeof event.channel === "string" &&
    typeof event.data === "string" &&
    (event.id === undefined || typeof event.id === "string") &&
    (event.event === undefined || typeof event.event === "string")
  );
}
