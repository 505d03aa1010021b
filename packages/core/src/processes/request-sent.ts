import { subscribe, unsubscribe } from "node:diagnostics_channel";

/**
 * Node's `fetch` (undici) announces on this channel that a request's body has gone out: the
 * model SDKs send through it, so a session's first model request is on its way when it fires.
 */
const BODY_SENT_CHANNEL = "undici:request:bodySent";

/**
 * Calls `callback` once, on the turn of the event loop after the next HTTP request made with
 * `fetch` in this process has been sent (the request's own writes come first). Returns the
 * cancel, for an owner that goes away before any request is sent.
 */
export function afterNextRequestSent(callback: () => void): () => void {
  let done = false;
  const cancel = () => {
    if (done) return;
    done = true;
    unsubscribe(BODY_SENT_CHANNEL, onSent);
  };
  function onSent(): void {
    if (done) return;
    cancel();
    setImmediate(callback);
  }
  subscribe(BODY_SENT_CHANNEL, onSent);
  return cancel;
}
