import { ROOT_AGENT_RUN_ID } from "@penguin/state";
import {
  type AgentMessage,
  DEFAULT_INBOX_LIMITS,
  type FinishedAgent,
  Inbox,
  type InboxLimits,
} from "./inbox.js";

/** Message ids are `msg_<n>`, numbered per session. */
export const MESSAGE_ID_PREFIX = "msg_";

export type SendOutcome = { ok: true; message: AgentMessage } | { ok: false; error: string };

/**
 * The inboxes of one session's agents: its root agent's and one per child the subagent runtime
 * started, keyed by agent run id (the ids run_subagent returns). A child's inbox accepts messages
 * while its task runs; once the task has ended the child is "finished" and a send is refused.
 */
export class MessageHub {
  private readonly inboxes = new Map<string, Inbox>();
  private readonly receiving = new Set<string>();
  private nextId: number;

  /**
   * `firstNumber`: the number of the first message id (`msg_<n>`); a resumed session starts past
   * the ids its trace holds, so an id names one message in the session's traces.
   */
  constructor(
    private readonly limits: InboxLimits = DEFAULT_INBOX_LIMITS,
    firstNumber = 1,
  ) {
    this.nextId = firstNumber;
  }

  /** Opens (or reopens) the inbox of `agentRunId`; messages still waiting in it are kept. */
  open(agentRunId: string): Inbox {
    let inbox = this.inboxes.get(agentRunId);
    if (!inbox) {
      inbox = new Inbox(agentRunId, this.limits);
      this.inboxes.set(agentRunId, inbox);
    }
    this.receiving.add(agentRunId);
    return inbox;
  }

  /** The agent has finished: later sends to it are refused. */
  close(agentRunId: string): void {
    this.receiving.delete(agentRunId);
  }

  inbox(agentRunId: string): Inbox | undefined {
    return this.inboxes.get(agentRunId);
  }

  /** `finished`: the message is a launched child's report of its end (see AgentMessage). */
  send(from: string, to: string, text: string, finished?: FinishedAgent): SendOutcome {
    if (text.trim() === "")
      return { ok: false, error: "send_message needs a non-empty text; nothing was sent." };
    if (to === from) {
      return { ok: false, error: `"${to}" is you: send_message goes to another agent; nothing was sent.` };
    }
    const inbox = this.inboxes.get(to);
    if (!inbox) {
      return { ok: false, error: `unknown recipient "${to}"; nothing was sent. ${this.recipients(from)}` };
    }
    if (!this.receiving.has(to)) {
      return {
        ok: false,
        error: `"${to}" has finished (its task ended) and receives no messages; nothing was sent. ${this.recipients(from)}`,
      };
    }
    const message: AgentMessage = {
      id: `${MESSAGE_ID_PREFIX}${this.nextId++}`,
      from,
      to,
      text,
      sentAt: new Date().toISOString(),
    };
    if (finished) message.finished = finished;
    const offered = inbox.offer(message);
    return offered.ok ? { ok: true, message } : offered;
  }

  /**
   * Puts back a message a resumed session's traces show as sent to `to` but never handed to it
   * (it keeps its id, sender and time). Refused like a send when the inbox is full.
   */
  restore(message: AgentMessage): SendOutcome {
    const inbox = this.inboxes.get(message.to) ?? this.open(message.to);
    const offered = inbox.offer(message);
    return offered.ok ? { ok: true, message } : offered;
  }

  /** Who `from` can write to now, for an error message. */
  private recipients(from: string): string {
    const open = [...this.receiving].filter((id) => id !== from);
    if (open.length === 0) return "No other agent of this session is running.";
    const root = open.includes(ROOT_AGENT_RUN_ID) ? ` ("${ROOT_AGENT_RUN_ID}" is the top-level agent)` : "";
    return `Agents that can receive: ${open.join(", ")}${root}.`;
  }
}

/** One agent's end of the hub: the tools of that agent's session send and wait as `self`. */
export interface Mailbox {
  hub: MessageHub;
  self: string;
  /** The agent run id of the agent that started `self` (`ask` goes there); absent for the root. */
  parent?: string;
}
