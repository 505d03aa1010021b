import { contentOf, type StreamedPayload } from "./aggregate.js";
import type { OmniMessage } from "./envelope.js";
import type { PartialEventType, PartialPayload } from "./model-messages.js";

/** Is `code` the first half of a UTF-16 surrogate pair? */
const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/** The UTF-16 index `count` code points after `from` (or the end of `text`). */
function advanceCodePoints(text: string, from: number, count: number): number {
  let i = from;
  for (let n = 0; n < count && i < text.length; n++) {
    const pair = isHighSurrogate(text.charCodeAt(i)) && isLowSurrogate(text.charCodeAt(i + 1));
    i += pair ? 2 : 1;
  }
  return i;
}

/**
 * Cuts `text` into fragments of the given sizes in code points, so a surrogate pair is never
 * split between two deltas. A number repeats until the text is used up (minimum 1); a list is
 * used in order (0 gives an empty fragment), and what is left after it goes in one last fragment.
 */
function cut(text: string, chunks: number | readonly number[]): string[] {
  const out: string[] = [];
  let at = 0;
  if (typeof chunks === "number") {
    const size = Math.max(1, Math.floor(chunks));
    while (at < text.length) {
      const next = advanceCodePoints(text, at, size);
      out.push(text.slice(at, next));
      at = next;
    }
    return out;
  }
  for (const size of chunks) {
    const next = advanceCodePoints(text, at, Math.max(0, Math.floor(size)));
    out.push(text.slice(at, next));
    at = next;
  }
  if (at < text.length) out.push(text.slice(at));
  return out;
}

/**
 * The partial stream of a complete text, thinking, tool call or tool output message: `start`,
 * one `delta` per fragment, `stop`. The fragments concatenate to exactly the complete's content;
 * a tool call's name rides on `start`, a tool output's images arrive whole on the last delta.
 * Every event keeps the complete's timestamp and origin. For producers that hold a complete
 * message and stream it (a replay model, a test server).
 *
 * `chunks`: fragment sizes in code points. A number repeats; a list is used in order (0 gives an
 * empty delta) and whatever is left after it goes in one last delta.
 */
export function splitIntoPartials(
  complete: OmniMessage<StreamedPayload>,
  chunks: number | readonly number[] = 16,
): OmniMessage<PartialPayload>[] {
  const payload = complete.payload;
  const fragments = cut(contentOf(payload), chunks);
  const images = payload.type === "tool_call_output" ? payload.images : undefined;
  if (images && images.length > 0 && fragments.length === 0) fragments.push("");

  const partial = (eventType: PartialEventType, fragment: string, last = false): PartialPayload => {
    switch (payload.type) {
      case "text":
        return {
          type: "partial_text",
          event_type: eventType,
          text: fragment,
          ...(eventType === "start" ? { role: payload.role } : {}),
        };
      case "thinking":
        return { type: "partial_thinking", event_type: eventType, thinking: fragment };
      case "tool_call":
        return {
          type: "partial_tool_call",
          event_type: eventType,
          tool_call_id: payload.tool_call_id,
          arguments: fragment,
          ...(eventType === "start" ? { name: payload.name } : {}),
        };
      case "tool_call_output":
        return {
          type: "partial_tool_call_output",
          event_type: eventType,
          tool_call_id: payload.tool_call_id,
          output: fragment,
          ...(last && images && images.length > 0 ? { images: [...images] } : {}),
        };
    }
  };
  const envelope = (p: PartialPayload) => {
    const message = {
      timestamp: complete.timestamp,
      type: "model_msg",
      payload: p,
    } as OmniMessage<PartialPayload>;
    if (complete.origin) message.origin = [...complete.origin];
    return message;
  };

  return [
    envelope(partial("start", "")),
    ...fragments.map((f, i) => envelope(partial("delta", f, i === fragments.length - 1))),
    envelope(partial("stop", "")),
  ];
}
