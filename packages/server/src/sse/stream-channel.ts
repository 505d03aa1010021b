import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import { SSE_HEARTBEAT_MS } from "../limits.js";
import type { EventHub, HubEvent, PublishInput } from "./event-hub.js";
import type { StreamLease } from "./stream-registry.js";

export interface StreamChannelOptions {
  /** Comment lines this often keep proxies from closing an idle stream; default 20 s. */
  heartbeatMs?: number;
  /** Overrides the request's `Last-Event-ID` header. */
  lastEventId?: string;
  /**
   * Events describing the channel's current state (a task state, pending approvals), taken at
   * the moment of subscribing and sent once the replayed gap (or resync event) has been written,
   * before any live event. They carry no `id:`, so the client's `Last-Event-ID` stays that of the
   * last hub event and a reconnect loses nothing. One asked of another instance arrives later
   * than the subscription starts: the events published meanwhile follow it, and as each carries
   * a whole state (a task state, one approval's request or decision) the client ends where the
   * channel is.
   */
  snapshot?: () => PublishInput[] | Promise<PublishInput[]>;
  /**
   * The stream's hold on the credential that opened it: the stream ends as soon as the lease is
   * revoked, and delivers no event once it is no longer valid; it is released when the stream ends.
   */
  lease?: StreamLease;
  /**
   * The events after a `Last-Event-ID` this hub never had (another instance issued it), from the
   * instance that has them (the session's owner); undefined when none does. Without it, or when
   * it gives nothing, such a client gets `resync_required` as for any unknown id.
   */
  fetchGap?: (lastEventId: string) => Promise<readonly ReplayedEvent[] | undefined>;
}

/** An event of another instance's buffer: its id there, name and data (its seq is that buffer's). */
export type ReplayedEvent = Omit<HubEvent, "seq">;

/** The replayed gap of a client that came back from another instance: fetched, then live. */
interface RemoteGap {
  lastEventId: string;
  fetch: (lastEventId: string) => Promise<readonly ReplayedEvent[] | undefined>;
}

/** The heartbeat: an SSE comment, which every client ignores. */
export const HEARTBEAT_COMMENT = ": heartbeat\n\n";

/**
 * Streams one hub channel as `text/event-stream` through hono's `streamSSE`: the replayed gap
 * (or a resync event) first, then live events, each with its `id:`, plus heartbeats. The
 * subscription ends when the client disconnects or the channel closes. The caller must already
 * have checked that the user may see `channelId`.
 */
export function streamChannel(
  c: Context,
  hub: EventHub,
  channelId: string,
  options: StreamChannelOptions = {},
): Response {
  const lastEventId = options.lastEventId ?? c.req.header("last-event-id");
  const heartbeatMs = options.heartbeatMs ?? SSE_HEARTBEAT_MS;
  // Subscribe now, before the response starts, so no event published meanwhile is missed; the
  // snapshot is taken in the same tick, so it describes the channel exactly at that position.
  const newest = hub.newest(channelId);
  const remote = remoteGap(hub, channelId, lastEventId, options.fetchGap);
  // A gap fetched elsewhere is written before this hub's events, which start from now.
  const subscription = hub.subscribe(channelId, remote ? undefined : lastEventId);
  // Not for a client whose gap is fetched elsewhere: the gap brings it up to date, and only when
  // that fails is a snapshot taken (after the resync event, which makes the client refetch).
  let snapshot = remote ? undefined : options.snapshot?.();
  // The newest seq when subscribing: once an event at or past it is written, the gap is over.
  const boundary = newest?.seq ?? 0;
  const hasGap = lastEventId !== undefined && lastEventId !== "" && lastEventId !== newest?.id;
  const { lease } = options;
  const endOnRevoke = () => subscription.close();
  lease?.signal.addEventListener("abort", endOnRevoke, { once: true });
  if (lease?.signal.aborted) subscription.close();
  // Checked before every write: a revoked or expired credential gets nothing more.
  const mayDeliver = () => lease === undefined || lease.valid();
  return streamSSE(c, async (stream) => {
    stream.onAbort(() => subscription.close());
    const heartbeat = setInterval(() => {
      void stream.write(HEARTBEAT_COMMENT);
    }, heartbeatMs);
    const writeSnapshot = async () => {
      const taken = snapshot;
      snapshot = undefined;
      const events = (await taken) ?? [];
      for (const event of events) {
        if (!mayDeliver()) return;
        await stream.writeSSE({ data: event.data, ...(event.event ? { event: event.event } : {}) });
      }
    };
    const write = (event: ReplayedEvent) =>
      stream.writeSSE({ id: event.id, data: event.data, ...(event.event ? { event: event.event } : {}) });
    try {
      // Ids of the fetched gap's events, which may come through this hub's relay as well.
      let written = new Set<string>();
      if (remote) {
        const gap = await remote.fetch(remote.lastEventId);
        if (gap) {
          for (const event of gap) {
            if (!mayDeliver()) return;
            await write(event);
          }
          written = new Set(gap.map((event) => event.id));
        } else {
          // As for any id nobody can replay: the resync first, then the snapshot after it.
          subscription.resync("unknown_epoch");
          snapshot = options.snapshot?.();
        }
      } else if (!hasGap) await writeSnapshot();
      for await (const event of subscription) {
        if (!mayDeliver()) break;
        if (written.size > 0 && written.delete(event.id)) continue;
        await write(event);
        if (snapshot && event.seq >= boundary) await writeSnapshot();
        if (stream.aborted) break;
      }
    } finally {
      clearInterval(heartbeat);
      subscription.close();
      lease?.signal.removeEventListener("abort", endOnRevoke);
      lease?.release();
    }
  });
}

/** The gap to fetch from another instance: an id this hub never issued nor was relayed. */
function remoteGap(
  hub: EventHub,
  channelId: string,
  lastEventId: string | undefined,
  fetch: StreamChannelOptions["fetchGap"],
): RemoteGap | undefined {
  if (!fetch || lastEventId === undefined || lastEventId === "") return undefined;
  return hub.resyncReason(channelId, lastEventId) === "unknown_epoch" ? { lastEventId, fetch } : undefined;
}
