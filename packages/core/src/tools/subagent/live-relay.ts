import { isPartialMessage, type OmniMessage } from "@penguin/protocol";
import { MAX_DETACHED_BACKLOG_MESSAGES } from "./limits.js";

/** The messages a following call has not taken yet. */
export interface SubagentFeed {
  take(): OmniMessage[];
  close(): void;
}

/** The complete message each kind of partial stream ends with. */
const COMPLETE_KIND_OF_PARTIAL: Readonly<Record<string, string>> = {
  partial_text: "text",
  partial_thinking: "thinking",
  partial_tool_call: "tool_call",
  partial_tool_call_output: "tool_call_output",
};
const STREAMED_KINDS = new Set(Object.values(COMPLETE_KIND_OF_PARTIAL));

interface StreamPayload {
  type: string;
  event_type?: string;
  tool_call_id?: string;
}

/**
 * The stream a message belongs to ("streams are told apart by origin, kind and tool_call_id"),
 * or undefined for a message that is not part of one (events, images, session_meta).
 */
function streamOf(message: OmniMessage): string | undefined {
  if (message.type !== "model_msg") return undefined;
  const payload = message.payload as StreamPayload;
  const kind = COMPLETE_KIND_OF_PARTIAL[payload.type] ?? payload.type;
  if (!STREAMED_KINDS.has(kind)) return undefined;
  // At most one text and one thinking stream are open per origin; tool streams go by call id.
  const id = kind === "tool_call" || kind === "tool_call_output" ? (payload.tool_call_id ?? "") : "";
  return `${(message.origin ?? []).join("/")}|${kind}|${id}`;
}

function isStop(message: OmniMessage): boolean {
  return isPartialMessage(message) && (message.payload as StreamPayload).event_type === "stop";
}

/** One following call: what it has not taken yet, and the streams it saw start. */
class Follower {
  readonly queue: OmniMessage[] = [];
  private readonly open = new Set<string>();

  /** Queues the message unless it continues a stream this follower never saw start. */
  accept(message: OmniMessage): void {
    const stream = streamOf(message);
    if (stream !== undefined && isPartialMessage(message)) {
      const event = (message.payload as StreamPayload).event_type;
      if (event === "start") this.open.add(stream);
      // Joined mid-stream: the rest of that stream is left out; its complete message still comes.
      else if (!this.open.has(stream)) return;
      else if (event === "stop") this.open.delete(stream);
    } else if (stream !== undefined) {
      this.open.delete(stream);
    }
    this.queue.push(message);
  }
}

/**
 * How a child's messages reach the calls that follow it, keeping the framing of
 * docs/protocol.md per session: a stream is start, deltas, stop, then its complete message
 * right away, whichever calls come and go and however children interleave.
 *
 * - One call at a time gets the live messages (the one that has followed longest): two calls
 *   following the same child would otherwise put every stream into the parent twice.
 * - A call that starts following mid-stream (a poll) is not given the rest of a stream it did
 *   not see start; the complete message still comes.
 * - A `stop` is handed over together with the message after it, so a follow that ends between
 *   the two (its window elapsed) never splits a stream from its complete message.
 * - While no call follows, complete messages wait in a bounded backlog for the next one;
 *   partials are dropped (nobody watches them live).
 */
export class LiveRelay {
  private readonly followers: Follower[] = [];
  private backlog: OmniMessage[] = [];
  private heldStop: OmniMessage | undefined;

  /** A new following call: what waited in the backlog first, then the live messages. */
  subscribe(): SubagentFeed {
    const follower = new Follower();
    for (const message of this.backlog.splice(0)) follower.accept(message);
    this.followers.push(follower);
    return {
      take: () => follower.queue.splice(0),
      close: () => {
        const at = this.followers.indexOf(follower);
        if (at >= 0) this.followers.splice(at, 1);
      },
    };
  }

  /** One message of the child, in the child's order. */
  deliver(message: OmniMessage): void {
    const held = this.heldStop;
    this.heldStop = undefined;
    if (isStop(message)) {
      // A stop right after a stop: the first stream was abandoned, it has no complete message.
      if (held) this.route([held]);
      this.heldStop = message;
      return;
    }
    this.route(held ? [held, message] : [message]);
  }

  /** The child's stream has ended: a stop still held goes out alone. */
  flush(): void {
    const held = this.heldStop;
    this.heldStop = undefined;
    if (held) this.route([held]);
  }

  private route(messages: OmniMessage[]): void {
    const follower = this.followers[0];
    if (follower) {
      for (const message of messages) follower.accept(message);
      return;
    }
    for (const message of messages) {
      if (isPartialMessage(message)) continue;
      this.backlog.push(message);
      if (this.backlog.length > MAX_DETACHED_BACKLOG_MESSAGES) this.backlog.shift();
    }
  }
}
