import type { Logger } from "pino";
import { encodeRelay, RelayDecoder, type RelayedEvent } from "./relay-codec.js";

/** The PostgreSQL notification channel the instances of one database share. */
export const RELAY_CHANNEL = "penguin_relay";
/** The relay connection's `application_name` (with the instance id after it) in pg_stat_activity. */
export const RELAY_APPLICATION_NAME = "penguin relay";
/** After the relay's connection is lost, the next attempt waits this long (then doubles, to a minute). */
const RECONNECT_FIRST_MS = 500;
const RECONNECT_MAX_MS = 60_000;

export interface PgRelayOptions {
  url: string;
  /** This instance: its own notifications come back to it and are ignored. */
  instanceId: string;
  logger: Logger;
  /** The events other instances published, in the order each sent them. */
  onEvents(events: RelayedEvent[]): void;
  /** After the connection was lost and opened again: events of that time are missed. */
  onReconnected?(): void;
}

type PgClient = import("pg").Client;

/**
 * The live events of every instance reach every other one through PostgreSQL's LISTEN/NOTIFY, on
 * one connection of its own: what this instance publishes is queued and sent in order (batched
 * while a send is under way), and what others publish is handed to `onEvents`. A lost connection
 * is opened again with a growing pause; events sent meanwhile are lost, both ways, and
 * `onReconnected` says so, so the clients of this instance are told to refetch.
 */
export class PgRelay {
  #client: PgClient | undefined;
  #queue: RelayedEvent[] = [];
  #flushing: Promise<void> | undefined;
  #closed = false;
  #reconnectMs = RECONNECT_FIRST_MS;
  #reconnectTimer: NodeJS.Timeout | undefined;
  readonly #decoder: RelayDecoder;

  private constructor(private readonly options: PgRelayOptions) {
    this.#decoder = new RelayDecoder(options.instanceId);
  }

  /** Connects and listens; throws when the first connection fails. */
  static async start(options: PgRelayOptions): Promise<PgRelay> {
    const relay = new PgRelay(options);
    await relay.#connect();
    return relay;
  }

  /** Queues an event for the other instances. */
  send(event: RelayedEvent): void {
    if (this.#closed) return;
    this.#queue.push(event);
    this.#flushing ??= this.#flush().finally(() => {
      this.#flushing = undefined;
    });
  }

  /** Sends what is queued, then ends the connection. */
  async close(): Promise<void> {
    if (this.#closed) return;
    await this.#flushing;
    this.#closed = true;
    if (this.#reconnectTimer) clearTimeout(this.#reconnectTimer);
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }

  async #connect(): Promise<void> {
    const { default: pg } = await import("pg");
    // Named, so an operator can tell the relay's connection among the pool's.
    const client = new pg.Client({
      connectionString: this.options.url,
      application_name: `${RELAY_APPLICATION_NAME} ${this.options.instanceId}`,
    });
    client.on("notification", (message) => {
      if (message.channel !== RELAY_CHANNEL || message.payload === undefined) return;
      const events = this.#decoder.decode(message.payload);
      if (events.length > 0) this.options.onEvents(events);
    });
    client.on("error", (error) => {
      this.options.logger.warn({ err: error }, "the relay's database connection failed; it is opened again");
      this.#lost(client);
    });
    client.on("end", () => this.#lost(client));
    await client.connect();
    await client.query(`listen ${RELAY_CHANNEL}`);
    this.#client = client;
    this.#reconnectMs = RECONNECT_FIRST_MS;
  }

  #lost(client: PgClient): void {
    if (this.#closed || this.#client !== client) return;
    this.#client = undefined;
    client.end().catch(() => undefined);
    this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    if (this.#closed || this.#reconnectTimer) return;
    const wait = this.#reconnectMs;
    this.#reconnectMs = Math.min(this.#reconnectMs * 2, RECONNECT_MAX_MS);
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = undefined;
      this.#connect().then(
        () => this.options.onReconnected?.(),
        (error: unknown) => {
          this.options.logger.warn({ err: error }, "the relay could not reconnect to the database");
          this.#scheduleReconnect();
        },
      );
    }, wait);
    this.#reconnectTimer.unref();
  }

  async #flush(): Promise<void> {
    while (this.#queue.length > 0) {
      const events = this.#queue;
      this.#queue = [];
      const client = this.#client;
      // Without a connection the other instances miss these: nothing can hold them for later.
      if (!client) continue;
      try {
        // One round trip for the whole batch: under load the queue holds many notifications, and
        // one query each kept every event waiting for those before it. A transaction's
        // notifications arrive in the order it sent them.
        const payloads = encodeRelay(this.options.instanceId, events);
        await client.query(
          "select pg_notify($1, payload) from unnest($2::text[]) with ordinality as p(payload, n) order by n",
          [RELAY_CHANNEL, payloads],
        );
      } catch (error) {
        this.options.logger.warn({ err: error }, "could not relay events to the other instances");
      }
    }
  }
}
