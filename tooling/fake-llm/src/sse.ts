/**
 * One server-sent event as the fake server will write it. `delta` marks frames that carry a
 * piece of the answer (thinking, text or tool-call arguments): the `after_chunks` of a scripted
 * failure counts these frames, so a failure lands at the same point of the answer whatever the
 * protocol's framing events around it.
 */
export interface SseFrame {
  /** The `event:` line; OpenAI Chat Completions sends none. */
  event?: string;
  /** The `data:` payload: a JSON text, or `[DONE]`. */
  data: string;
  delta?: boolean;
}

/** A frame whose payload is `value` serialised as JSON. */
export function jsonFrame(value: unknown, options: { event?: string; delta?: boolean } = {}): SseFrame {
  return { ...options, data: JSON.stringify(value) };
}

/** The wire text of a frame: optional `event:` line, one `data:` line, blank line. */
export function formatSseFrame(frame: SseFrame): string {
  const eventLine = frame.event === undefined ? "" : `event: ${frame.event}\n`;
  return `${eventLine}data: ${frame.data}\n\n`;
}

/** Response headers of an event stream. */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  connection: "keep-alive",
};
