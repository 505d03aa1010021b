import type { OmniMessage } from "@penguin/protocol";
import { errorMessage } from "@penguin/protocol/stream";
import { ApiError, api } from "../api/client.js";
import type { ServerEvent } from "../api/types.js";
import { afterSeed } from "./event-id.js";
import { SessionTimeline, type TimelineState } from "./timeline.js";

/** How long to wait before opening a stream again after the browser gave up on it. */
const RECONNECT_DELAY_MS = 2_000;

/** `ended`: the stream will not come back (logged out, or the session is gone); see the detail. */
export type StreamStatus = "connecting" | "live" | "reconnecting" | "ended";

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
 *
 * When the browser gives up on the stream, the session API is asked once why before another
 * stream is opened: a 401 has already sent the app to the login page and a 404 means the
 * session is gone, so the stream ends (`ended`) instead of retrying forever.
 */
export function followSession(sessionId: string, handlers: SessionStreamHandlers): { close(): void } {
  const timeline = new SessionTimeline();
  let source: EventSource | undefined;
  let buffer: Buffered[] | undefined = [];
  let closed = false;
  let generation = 0;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let checking = false;

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
      // Not the events without an id (the connect snapshot) nor those the answer already includes.
      for (const item of afterSeed(pending, response.last_event_id)) {
        if (item.apply(timeline) === "resync") resync = true;
      }
      publish();
      if (resync) return reseed();
      handlers.onStatus("live");
    } catch (error) {
      if (closed || mine !== generation) return;
      if (endFor(error)) return;
      handlers.onStatus("reconnecting", errorMessage(error));
      scheduleReconnect();
    }
  }

  /** Ends the stream for an answer no retry can change; false for anything else. */
  function endFor(error: unknown): boolean {
    if (!(error instanceof ApiError) || (error.status !== 401 && error.status !== 404)) return false;
    stop();
    // A 401 has already sent the app to the login page (the API client's unauthorized handler).
    handlers.onStatus(
      "ended",
      error.status === 401
        ? "you are no longer logged in"
        : "this session no longer exists: it was deleted, or it is not yours",
    );
    return true;
  }

  /** The browser closed the stream for good (it answered an error): ask why, then maybe retry. */
  async function checkThenReconnect(): Promise<void> {
    source?.close();
    if (checking || retryTimer !== undefined || closed) return;
    checking = true;
    try {
      await api.getSession(sessionId);
    } catch (error) {
      if (closed || endFor(error)) return;
      // Anything else (the server is down, a 5xx) may pass: keep retrying after the pause.
    } finally {
      checking = false;
    }
    if (closed) return;
    handlers.onStatus("reconnecting", "the live stream closed");
    scheduleReconnect();
  }

  function stop(): void {
    closed = true;
    generation += 1;
    if (retryTimer !== undefined) clearTimeout(retryTimer);
    retryTimer = undefined;
    source?.close();
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
        void checkThenReconnect();
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
  return { close: stop };
}
