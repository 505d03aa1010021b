import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import { SSE_HEARTBEAT_MS } from "../limits.js";
import type { EventHub } from "./event-hub.js";

export interface StreamChannelOptions {
  /** Comment lines this often keep proxies from closing an idle stream; default 20 s. */
  heartbeatMs?: number;
  /** Overrides the request's `Last-Event-ID` header. */
  lastEventId?: string;
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
  // Subscribe now, before the response starts, so no event published meanwhile is missed.
  const subscription = hub.subscribe(channelId, lastEventId);
  return streamSSE(c, async (stream) => {
    stream.onAbort(() => subscription.close());
    const heartbeat = setInterval(() => {
      void stream.write(HEARTBEAT_COMMENT);
    }, heartbeatMs);
    try {
      for await (const event of subscription) {
        await stream.writeSSE({
          id: event.id,
          data: event.data,
          ...(event.event ? { event: event.event } : {}),
        });
        if (stream.aborted) break;
      }
    } finally {
      clearInterval(heartbeat);
      subscription.close();
    }
  });
}
