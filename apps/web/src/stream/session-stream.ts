import type { OmniMessage } from "@penguin/protocol";
import { api } from "../api/client.js";
import type { ServerEvent } from "../api/types.js";
import { isAtOrBefore } from "./event-id.js";
import { SessionTimeline, type TimelineState } from "./timeline.js";

/** How long to wait before opening a stream again after the browser gave up on it. */
const RECONNECT_DELAY_MS = 2_000;

export type StreamStatus = "connecting" | "live" | "reconnecting";

export interface SessionStreamHandlers {
  onState(state: TimelineState): void;
  onStatus(status: StreamStatus, detail?: string): void;
}

interface Buffered {
  id: string;
  apply(timeline: SessionTimeline): "resync" | undefined;
}

/**
 * Follows one session: history and live state without a gap and without a repeat.
 *
 * On every (re)connect it subscribes first and buffers what arrives, then fetches
 * GET .../messages (the trace, the open partial streams, the waiting calls and the id of the
 * newest event they include), seeds the timeline with it, drops the buffered events at or before
 * that id, applies the rest and goes live. A page reload therefore shows everything once, a
 * reconnect (the browser's own, with Last-Event-ID) reloads the same way, and a
 * `resync_required` event does too.
 */
export function followSession(sessionId: string, handlers: SessionStreamHandlers): { close(): void } {
  const timeline = new SessionTimeline();
  let source: EventSource | undefined;
  let buffer: Buffered[] | undefined = [];
  let closed = false;
  let generation = 0;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;

  const publish = () => handlers.onState(timeline.state());

  const deliver = (item: Buffered) => {
    if (buffer) {
      buffer.push(item);
      return;
    }
    if (item.apply(timeline) === "resync") {
      void reseed();
      return;
    }
    publish();
  };

  async function reseed(): Promise<void> {
    const mine = ++generation;
    buffer = [];
    handlers.onStatus("connecting");
    try {
      const response = await api.messages(sessionId);
      if (closed || mine !== generation) return;
      timeline.seed(response);
      const pending = buffer ?? [];
      buffer = undefined;
      let resync = false;
      for (const item of pending) {
        // Events without an id (the connect snapshot) and those the answer already includes.
        if (item.id === "" || isAtOrBefore(item.id, response.last_event_id)) continue;
        if (item.apply(timeline) === "resync") resync = true;
      }
      publish();
      if (resync) return reseed();
      handlers.onStatus("live");
    } catch (error) {
      if (closed || mine !== generation) return;
      handlers.onStatus("reconnecting", error instanceof Error ? error.message : String(error));
      scheduleReconnect();
    }
  }

  function connect(): void {
    if (closed) return;
    buffer = [];
    const stream = new EventSource(api.streamUrl(sessionId));
    source = stream;
    stream.addEventListener("open", () => void reseed());
    stream.addEventListener("message", (event) => {
      const message = JSON.parse(event.data) as OmniMessage;
      deliver({
        id: event.lastEventId,
        apply: (t) => {
          t.applyEnvelope(message);
          return undefined;
        },
      });
    });
    stream.addEventListener("server_event", (event) => {
      const data = JSON.parse((event as MessageEvent<string>).data) as ServerEvent;
      deliver({ id: (event as MessageEvent).lastEventId, apply: (t) => t.applyServerEvent(data) });
    });
    stream.addEventListener("error", () => {
      if (closed) return;
      // CONNECTING: the browser retries by itself (and reseeds on open). CLOSED: it gave up (e.g.
      // the server answered an error), so open a new stream after a pause.
      if (stream.readyState === EventSource.CLOSED) {
        handlers.onStatus("reconnecting", "the live stream closed");
        scheduleReconnect();
      } else {
        buffer = [];
        handlers.onStatus("reconnecting", "the live stream was interrupted");
      }
    });
  }

  function scheduleReconnect(): void {
    source?.close();
    if (retryTimer !== undefined || closed) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      connect();
    }, RECONNECT_DELAY_MS);
  }

  connect();
  return {
    close() {
      closed = true;
      if (retryTimer !== undefined) clearTimeout(retryTimer);
      source?.close();
    },
  };
}
