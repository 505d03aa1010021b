import type { StopReason } from "@penguin/protocol";
import { MAX_INBOX_BYTES, MAX_INBOX_MESSAGES } from "@penguin/state";
import { ActivityWaiters } from "../../processes/activity-waiters.js";

/** One message between two agents of a session. */
export interface AgentMessage {
  id: string;
  /** The sender's agent run id (`root` or a child's `sub_N`). */
  from: string;
  to: string;
  text: string;
  /** When it was sent (ISO 8601). */
  sentAt: string;
  /** Set when the message is a question `ask` put (`q_N`): the recipient answers it with `reply_to`. */
  questionId?: string;
  /** Set when the message answered the recipient's question `q_N` (it never waits in an inbox). */
  replyTo?: string;
  /**
   * Set on the message a launched child's end sends its launcher: its delivery is also recorded
   * as `agent_finished` in the launcher's trace.
   */
  finished?: FinishedAgent;
}

/** A launched child whose task ended, as its last message tells its launcher. */
export interface FinishedAgent {
  agentRunId: string;
  status: StopReason;
  message?: string;
}

/** A message as its `message_sent` / `message_delivered` event records it, for one tool call. */
export function messageEventFields(message: AgentMessage, toolCallId: string) {
  return {
    message_id: message.id,
    from: message.from,
    to: message.to,
    sent_at: message.sentAt,
    text: message.text,
    tool_call_id: toolCallId,
    ...(message.questionId ? { question_id: message.questionId } : {}),
    ...(message.replyTo ? { reply_to: message.replyTo } : {}),
  };
}

/** The bounds of one inbox ("bounded inboxes (count and bytes)"). */
export interface InboxLimits {
  maxMessages: number;
  maxBytes: number;
}

export const DEFAULT_INBOX_LIMITS: InboxLimits = {
  maxMessages: MAX_INBOX_MESSAGES,
  maxBytes: MAX_INBOX_BYTES,
};

export type OfferOutcome = { ok: true } | { ok: false; error: string };

/**
 * The messages waiting for one agent, oldest first. Bounded in count and in UTF-8 bytes of text:
 * a message that would pass either bound is refused (the sender reads why), never dropped later,
 * so what an inbox accepted is what its owner reads.
 */
export class Inbox {
  private readonly waiting: AgentMessage[] = [];
  private waitingBytes = 0;
  private readonly arrivals = new ActivityWaiters();

  constructor(
    readonly owner: string,
    readonly limits: InboxLimits = DEFAULT_INBOX_LIMITS,
  ) {}

  get size(): number {
    return this.waiting.length;
  }

  get bytes(): number {
    return this.waitingBytes;
  }

  offer(message: AgentMessage): OfferOutcome {
    const { maxMessages, maxBytes } = this.limits;
    if (this.waiting.length >= maxMessages) {
      return {
        ok: false,
        error: `the inbox of "${this.owner}" is full: ${this.waiting.length} messages wait (the limit is ${maxMessages}). Nothing was sent; send again after it has read its messages.`,
      };
    }
    const size = Buffer.byteLength(message.text, "utf8");
    if (this.waitingBytes + size > maxBytes) {
      return {
        ok: false,
        error: `the inbox of "${this.owner}" is full: ${this.waitingBytes} bytes wait and this message has ${size} bytes, over the limit of ${maxBytes} bytes. Nothing was sent; send a shorter message, or send again after it has read its messages.`,
      };
    }
    this.waiting.push(message);
    this.waitingBytes += size;
    this.arrivals.wake();
    return { ok: true };
  }

  /** Takes every waiting message out, oldest first. */
  takeAll(): AgentMessage[] {
    const taken = this.waiting.splice(0);
    this.waitingBytes = 0;
    return taken;
  }

  /** Takes out the unread message `id` (a question withdrawn before it was read); false when it is not here. */
  remove(id: string): boolean {
    const index = this.waiting.findIndex((message) => message.id === id);
    if (index === -1) return false;
    const [removed] = this.waiting.splice(index, 1);
    if (removed) this.waitingBytes -= Buffer.byteLength(removed.text, "utf8");
    return true;
  }

  /** Resolves when a message arrives, after `ms`, or when `signal` aborts, whichever is first. */
  waitForArrival(ms: number, signal?: AbortSignal): Promise<void> {
    if (this.waiting.length > 0) return Promise.resolve();
    return this.arrivals.wait(ms, signal);
  }
}
