// A streamable-HTTP or SSE server that dies mid-call leaves the SDK's client waiting: the SDK
// reports a broken event stream only to `onerror` (and then tries to resume it), and the request
// stays pending until its timeout. The `fetch` the transports use is wrapped here instead, so the
// connection sees the network itself fail: a request that cannot reach the server, or an event
// stream (a call's answer, or the server's own stream) that breaks off.

import { errorMessage } from "@penguin/protocol";
/**
 * Called once per failure seen on the network; `error` is what fetch or the stream raised.
 * `delivered`: false when the request surely never reached the server (no connection was made).
 */
export type ConnectionLost = (error: unknown, delivered: boolean) => void;

/** Errors of opening a connection: the request was never sent. */
const NOT_CONNECTED = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);

/** The media type of an event stream (the answers that can break off mid-call). */
const EVENT_STREAM = "text/event-stream";

/**
 * A `fetch` for one transport that reports every network failure to `onLost`. Requests the
 * transport itself cancels (its abort signal, when the connection is closed) are not failures.
 */
export function watchedFetch(onLost: ConnectionLost): typeof fetch {
  return async (input, init) => {
    const signal = init?.signal ?? undefined;
    let response: Response;
    try {
      response = await fetch(input, init);
    } catch (error) {
      if (!signal?.aborted) onLost(error, !NOT_CONNECTED.has(lossDetail(error)));
      throw error;
    }
    const type = response.headers.get("content-type") ?? "";
    if (!response.ok || !response.body || !type.toLowerCase().startsWith(EVENT_STREAM)) return response;
    return new Response(watchedBody(response.body, onLost, signal), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** `body` as it arrives; a read that fails (the server went away mid-stream) is reported first. */
function watchedBody(
  body: ReadableStream<Uint8Array>,
  onLost: ConnectionLost,
  signal: AbortSignal | undefined,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        if (!signal?.aborted) onLost(error, true);
        controller.error(error);
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/** The most telling part of a network error: a system error code, else the innermost message. */
export function lossDetail(error: unknown): string {
  let current: unknown = error;
  let message = errorMessage(error);
  for (let depth = 0; current instanceof Error && depth < 5; depth++) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === "string" && /^E[A-Z]+$/.test(code)) return code;
    if (current.message) message = current.message;
    current = (current as { cause?: unknown }).cause;
  }
  return message;
}
