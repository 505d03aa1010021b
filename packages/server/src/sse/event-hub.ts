import { randomBytes } from "node:crypto";
import { SSE_MAX_BUFFERED_BYTES, SSE_MAX_BUFFERED_EVENTS } from "../limits.js";

/** The named SSE event that carries the server's own events (as JSON with a `type`). */
export const SERVER_EVENT = "server_event";
/** `type` of the server event that tells a client its view has a gap: refetch, then go on live. */
export const RESYNC_REQUIRED = "resync_required";

/**
 * Why a subscriber must resync: the events after its `Last-Event-ID` left the buffer
 * (`gap_too_old`), the id comes from another server process (`unknown_epoch`), the id is not
 * one this hub could have issued (`invalid_id`), or events of other instances may have been
 * missed while this one's relay connection was down (`relay_interrupted`).
 */
export type ResyncReason = "gap_too_old" | "unknown_epoch" | "invalid_id" | "relay_interrupted";

export interface HubEvent {
  /**
   * `<epoch>-<seq>`: the SSE `id:` line, echoed back by the client as `Last-Event-ID`. The epoch
   * and seq are those of the hub that published the event: an event relayed from another
   * instance keeps its id there, so an id names one event on every instance.
   */
  readonly id: string;
  /**
   * Position in its channel, from 1 (continuing across the closes of the channel); 0 only on a
   * resync event of a channel that never had an event.
   */
  readonly seq: number;
  /** SSE `event:` name; absent for unnamed events (the session envelopes). */
  readonly event?: string;
  readonly data: string;
}

export interface PublishInput {
  event?: string;
  /** The `data:` payload, already serialised (usually one line of JSON). */
  data: string;
}

/**
 * How many closed channels' newest sequence numbers the hub remembers, so a channel opened again
 * (an idle session's runtime was released, then a new task started) goes on counting where it
 * stopped and an id from its earlier lifetime never names an event of the new one. Past this
 * many, a forgotten channel starts above every sequence number forgotten so far, which keeps
 * ids unambiguous at the cost of a resync.
 */
export const CLOSED_CHANNELS_REMEMBERED = 10_000;

export interface EventHubOptions {
  maxEvents?: number;
  maxBytes?: number;
  /** Closed channels whose newest seq is remembered; default {@link CLOSED_CHANNELS_REMEMBERED}. */
  closedChannelsRemembered?: number;
  /** The id prefix of this process; default: the start time in base 36 plus 16 random bits. */
  epoch?: string;
}

interface Stored {
  event: HubEvent;
  size: number;
  /** Relayed from another instance: its id is in the channel's index of foreign ids. */
  foreign: boolean;
}

/** Where a `Last-Event-ID` leaves off in a channel: the seq after which to go on, or why not. */
type Position = { seq: number } | { resync: ResyncReason };

const EVENT_ID = /^([0-9a-z]+)-(\d{1,15})$/;

function defaultEpoch(): string {
  return `${Date.now().toString(36)}${randomBytes(2).toString("hex")}`;
}

class Channel {
  readonly subscribers = new Set<Subscription>();
  #stored: Stored[] = [];
  #head = 0;
  #bytes = 0;
  #lastSeq: number;
  #lastId: string | undefined;
  /** Seq of each buffered event relayed from another instance, by its id there. */
  readonly #foreign = new Map<string, number>();

  /** `startSeq`: the newest seq an earlier lifetime of this channel issued (0 for a new one). */
  constructor(
    private readonly maxEvents: number,
    private readonly maxBytes: number,
    startSeq: number,
  ) {
    this.#lastSeq = startSeq;
  }

  get lastSeq(): number {
    return this.#lastSeq;
  }

  /** The id of the newest event, while this lifetime of the channel has one. */
  get lastId(): string | undefined {
    return this.#lastId;
  }

  /** The seq of a buffered relayed event, by its id on the instance that published it. */
  foreignSeq(id: string): number | undefined {
    return this.#foreign.get(id);
  }

  get size(): number {
    return this.#stored.length - this.#head;
  }

  get bytes(): number {
    return this.#bytes;
  }

  /** Seq of the oldest buffered event (lastSeq + 1 when the buffer is empty). */
  get firstSeq(): number {
    return this.size === 0 ? this.#lastSeq + 1 : this.#stored[this.#head].event.seq;
  }

  /** `originId`: the id an event relayed from another instance has there. */
  append(epoch: string, input: PublishInput, originId?: string): HubEvent {
    const seq = ++this.#lastSeq;
    const event: HubEvent = {
      id: originId ?? `${epoch}-${seq}`,
      seq,
      ...(input.event !== undefined ? { event: input.event } : {}),
      data: input.data,
    };
    const size = Buffer.byteLength(input.data) + (input.event?.length ?? 0) + event.id.length;
    const foreign = originId !== undefined;
    this.#stored.push({ event, size, foreign });
    if (foreign) this.#foreign.set(originId, seq);
    this.#lastId = event.id;
    this.#bytes += size;
    // Evict the oldest, but always keep the newest event even when it alone is over the byte cap.
    while (this.size > 1 && (this.size > this.maxEvents || this.#bytes > this.maxBytes)) {
      const oldest = this.#stored[this.#head];
      this.#bytes -= oldest.size;
      if (oldest.foreign) this.#foreign.delete(oldest.event.id);
      this.#head += 1;
    }
    if (this.#head > 1024 && this.#head * 2 > this.#stored.length) {
      this.#stored = this.#stored.slice(this.#head);
      this.#head = 0;
    }
    return event;
  }

  /** Buffered events after `seq`, or undefined when some of them are no longer buffered. */
  after(seq: number): HubEvent[] | undefined {
    if (seq > this.#lastSeq) return undefined;
    if (seq + 1 < this.firstSeq) return undefined;
    const start = this.#head + (seq + 1 - this.firstSeq);
    return this.#stored.slice(start).map((stored) => stored.event);
  }
}

/**
 * One subscriber of a channel, read with `for await`. It keeps a cursor into the channel's
 * buffer instead of a queue of its own, so a slow reader costs no memory: when it falls so far
 * behind that the buffer no longer holds its next event, it gets a resync event and goes on
 * from the newest event.
 */
export class Subscription implements AsyncIterable<HubEvent> {
  #cursor: number;
  #pendingResync: ResyncReason | undefined;
  #closed = false;
  #wake: (() => void) | undefined;

  constructor(
    private readonly epoch: string,
    private readonly channel: Channel,
    cursor: number,
    resync: ResyncReason | undefined,
  ) {
    this.#cursor = cursor;
    this.#pendingResync = resync;
    channel.subscribers.add(this);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Ends the iteration (client gone, channel closed, server stopping). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.channel.subscribers.delete(this);
    this.notify();
  }

  /** Its next event is a resync (then it goes on from the newest event). */
  resync(reason: ResyncReason): void {
    if (this.#closed) return;
    this.#pendingResync = reason;
    this.notify();
  }

  /** Called by the hub after each publish. */
  notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  #resync(reason: ResyncReason): HubEvent {
    this.#cursor = this.channel.lastSeq;
    return {
      id: `${this.epoch}-${this.#cursor}`,
      seq: this.#cursor,
      event: SERVER_EVENT,
      data: JSON.stringify({ type: RESYNC_REQUIRED, reason }),
    };
  }

  async *[Symbol.asyncIterator](): AsyncIterator<HubEvent> {
    try {
      while (!this.#closed) {
        if (this.#pendingResync !== undefined) {
          const reason = this.#pendingResync;
          this.#pendingResync = undefined;
          yield this.#resync(reason);
          continue;
        }
        const batch = this.channel.after(this.#cursor);
        if (batch === undefined) {
          this.#pendingResync = "gap_too_old";
          continue;
        }
        if (batch.length === 0) {
          // No await between the check above and registering here, so no publish can slip between.
          await new Promise<void>((resolve) => {
            this.#wake = resolve;
          });
          continue;
        }
        for (const event of batch) {
          if (this.#closed) return;
          this.#cursor = event.seq;
          yield event;
        }
      }
    } finally {
      this.close();
    }
  }
}

/**
 * In-memory fan-out of server-sent events, one channel per session (or per user).
 *
 * Each published event gets the id `<epoch>-<seq>`, where the epoch is fixed for the process, so
 * an id from before a restart is recognised as unknown. Each channel keeps the newest events in
 * a bounded buffer (10,000 events / 8 MB by default). A subscriber that reconnects with
 * `Last-Event-ID` gets every event after that id when the buffer still holds them — nothing is
 * lost — and otherwise a `resync_required` server event first, then the live events.
 *
 * A closed channel that is opened again continues its sequence numbers instead of starting over,
 * so within one epoch an id always names the same event: a client back with an id from before the
 * close gets `resync_required` (its events are gone), never the new lifetime's events from the
 * middle.
 */
export class EventHub {
  readonly epoch: string;
  readonly #channels = new Map<string, Channel>();
  readonly #maxEvents: number;
  readonly #maxBytes: number;
  readonly #maxRemembered: number;
  /** The newest seq of each closed channel, oldest close first. */
  readonly #closedLastSeq = new Map<string, number>();
  /** The highest seq among closed channels no longer remembered: where a forgotten one restarts. */
  #forgottenFloor = 0;
  /** Where each event published here goes too: the other instances on the database. */
  #relay: ((channelId: string, event: HubEvent) => void) | undefined;

  constructor(options: EventHubOptions = {}) {
    this.epoch = options.epoch ?? defaultEpoch();
    if (!/^[0-9a-z]+$/.test(this.epoch))
      throw new TypeError("the epoch must be lower-case letters and digits");
    this.#maxEvents = Math.max(1, options.maxEvents ?? SSE_MAX_BUFFERED_EVENTS);
    this.#maxBytes = Math.max(1, options.maxBytes ?? SSE_MAX_BUFFERED_BYTES);
    this.#maxRemembered = Math.max(0, options.closedChannelsRemembered ?? CLOSED_CHANNELS_REMEMBERED);
  }

  #channel(channelId: string): Channel {
    let channel = this.#channels.get(channelId);
    if (!channel) {
      const startSeq = this.#closedLastSeq.get(channelId) ?? this.#forgottenFloor;
      this.#closedLastSeq.delete(channelId);
      channel = new Channel(this.#maxEvents, this.#maxBytes, startSeq);
      this.#channels.set(channelId, channel);
    }
    return channel;
  }

  #remember(channelId: string, lastSeq: number): void {
    if (lastSeq === 0) return;
    this.#closedLastSeq.delete(channelId);
    this.#closedLastSeq.set(channelId, lastSeq);
    for (const [oldest, seq] of this.#closedLastSeq) {
      if (this.#closedLastSeq.size <= this.#maxRemembered) break;
      this.#closedLastSeq.delete(oldest);
      this.#forgottenFloor = Math.max(this.#forgottenFloor, seq);
    }
  }

  /** Appends an event to a channel's buffer and wakes its subscribers (and relays it, see relayTo). */
  publish(channelId: string, input: PublishInput): HubEvent {
    const event = this.#append(this.#channel(channelId), input);
    this.#relay?.(channelId, event);
    return event;
  }

  /** From now on every event published here is handed to `sink` as well. */
  relayTo(sink: (channelId: string, event: HubEvent) => void): void {
    this.#relay = sink;
  }

  /**
   * An event another instance published, under the id it has there (`originId`; this hub's own
   * id when the sender gave none): buffered and delivered only on a channel open here (someone
   * watches it, or this instance runs its session), so the sessions nobody here watches cost no
   * memory. A client back from that instance with its `Last-Event-ID` goes on from here.
   */
  publishRelayed(channelId: string, input: PublishInput, originId?: string): HubEvent | undefined {
    const channel = this.#channels.get(channelId);
    if (!channel) return undefined;
    // An id that is malformed or already names a buffered event is replaced by one of this hub.
    const usable =
      originId !== undefined && EVENT_ID.test(originId) && channel.foreignSeq(originId) === undefined;
    return this.#append(channel, input, usable ? originId : undefined);
  }

  #append(channel: Channel, input: PublishInput, originId?: string): HubEvent {
    const event = channel.append(this.epoch, input, originId);
    for (const subscriber of channel.subscribers) subscriber.notify();
    return event;
  }

  /**
   * Subscribes from now on (no `lastEventId`), or from just after `lastEventId`: the buffered
   * gap first, then live events. When the gap cannot be replayed the first event is a
   * `resync_required` server event whose id is the channel's newest id.
   */
  subscribe(channelId: string, lastEventId?: string): Subscription {
    const channel = this.#channel(channelId);
    if (lastEventId === undefined || lastEventId === "") {
      return new Subscription(this.epoch, channel, channel.lastSeq, undefined);
    }
    const position = this.#position(channel, lastEventId);
    return "seq" in position
      ? new Subscription(this.epoch, channel, position.seq, undefined)
      : new Subscription(this.epoch, channel, channel.lastSeq, position.resync);
  }

  /**
   * The buffered events after `lastEventId` (none when it is the newest), without subscribing,
   * or why they cannot be given. A channel not open here has none to give.
   */
  replay(channelId: string, lastEventId: string): HubEvent[] | ResyncReason {
    const channel = this.#channels.get(channelId);
    if (!channel) return this.#unbufferedReason(lastEventId);
    const position = this.#position(channel, lastEventId);
    if ("resync" in position) return position.resync;
    return channel.after(position.seq) ?? "gap_too_old";
  }

  /** Why a subscription from `lastEventId` would resync, or undefined when it would replay (no copy made). */
  resyncReason(channelId: string, lastEventId: string): ResyncReason | undefined {
    const channel = this.#channels.get(channelId);
    if (!channel) return this.#unbufferedReason(lastEventId);
    const position = this.#position(channel, lastEventId);
    return "resync" in position ? position.resync : undefined;
  }

  /** Why an id cannot be replayed on a channel not open here. */
  #unbufferedReason(lastEventId: string): ResyncReason {
    const match = EVENT_ID.exec(lastEventId);
    if (!match) return "invalid_id";
    return match[1] === this.epoch ? "gap_too_old" : "unknown_epoch";
  }

  #position(channel: Channel, lastEventId: string): Position {
    const relayed = channel.foreignSeq(lastEventId);
    if (relayed !== undefined) return { seq: relayed };
    const match = EVENT_ID.exec(lastEventId);
    if (!match) return { resync: "invalid_id" };
    // Another process's id that names no event buffered here: an earlier server's, or a relayed
    // event that left the buffer (or was never relayed here).
    if (match[1] !== this.epoch) return { resync: "unknown_epoch" };
    const seq = Number(match[2]);
    if (seq > channel.lastSeq) return { resync: "invalid_id" };
    if (channel.after(seq) === undefined) return { resync: "gap_too_old" };
    return { seq };
  }

  /** The id and seq of the newest event of a channel, if it has any. */
  newest(channelId: string): { id: string; seq: number } | undefined {
    const channel = this.#channels.get(channelId);
    if (!channel || channel.lastSeq === 0) return undefined;
    return { id: channel.lastId ?? `${this.epoch}-${channel.lastSeq}`, seq: channel.lastSeq };
  }

  /** The id of the newest event of a channel, if it has any. */
  lastEventId(channelId: string): string | undefined {
    return this.newest(channelId)?.id;
  }

  /** Buffered events and bytes of a channel (for tests and metrics). */
  stats(channelId: string): { events: number; bytes: number; subscribers: number } {
    const channel = this.#channels.get(channelId);
    return channel
      ? { events: channel.size, bytes: channel.bytes, subscribers: channel.subscribers.size }
      : { events: 0, bytes: 0, subscribers: 0 };
  }

  /**
   * Ends a channel's subscribers and forgets its buffer (the session was deleted or released);
   * only its newest seq is kept, for a later lifetime to continue from.
   */
  closeChannel(channelId: string): void {
    const channel = this.#channels.get(channelId);
    if (!channel) return;
    for (const subscriber of [...channel.subscribers]) subscriber.close();
    this.#channels.delete(channelId);
    this.#remember(channelId, channel.lastSeq);
  }

  /** Tells every subscriber of every channel to resync (see ResyncReason). */
  resyncAll(reason: ResyncReason): void {
    for (const channel of this.#channels.values()) {
      for (const subscriber of channel.subscribers) subscriber.resync(reason);
    }
  }

  /** Ends every subscriber of every channel (the server is stopping). */
  close(): void {
    for (const channelId of [...this.#channels.keys()]) this.closeChannel(channelId);
  }
}
