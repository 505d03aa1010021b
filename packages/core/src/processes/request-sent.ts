import { subscribe, unsubscribe } from "node:diagnostics_channel";
import type { ClientRequest } from "node:http";

/**
 * node:http announces each request it creates on this channel (`{ request }`), and the request
 * emits `finish` once all of it has been handed to the socket. The provider SDKs send through
 * node:http (models/http/node-http-fetch.ts), so a session's first model request is on its way then.
 */
const HTTP_REQUEST_CREATED_CHANNEL = "http.client.request.start";

/** Node's `fetch` (undici) announces here that a request's body has gone out (a tool's, an MCP server's). */
const FETCH_BODY_SENT_CHANNEL = "undici:request:bodySent";

/**
 * Calls `callback` once, on the turn of the event loop after the next HTTP request made in this
 * process, through node:http or `fetch`, has been sent (the request's own writes come first).
 * Returns the cancel, for an owner that goes away before any request is sent.
 */
export function afterNextRequestSent(callback: () => void): () => void {
  let done = false;
  const cancel = () => {
    if (done) return;
    done = true;
    unsubscribe(FETCH_BODY_SENT_CHANNEL, onSent);
    unsubscribe(HTTP_REQUEST_CREATED_CHANNEL, onHttpRequest);
  };
  function onSent(): void {
    if (done) return;
    cancel();
    setImmediate(callback);
  }
  function onHttpRequest(message: unknown): void {
    (message as { request?: ClientRequest }).request?.once("finish", onSent);
  }
  subscribe(FETCH_BODY_SENT_CHANNEL, onSent);
  subscribe(HTTP_REQUEST_CREATED_CHANNEL, onHttpRequest);
  return cancel;
}
