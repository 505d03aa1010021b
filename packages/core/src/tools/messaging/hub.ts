import { ROOT_AGENT_RUN_ID } from "@penguin/state";
import {
  type AgentMessage,
  DEFAULT_INBOX_LIMITS,
  type FinishedAgent,
  Inbox,
  type InboxLimits,
} from "./inbox.js";
import { type Answer, OpenQuestions } from "./questions.js";
import type { UserAnswerers } from "./user-answerers.js";

/** Message ids are `msg_<n>`, numbered per session. */
export const MESSAGE_ID_PREFIX = "msg_";

export type SendOutcome = { ok: true; message: AgentMessage } | { ok: false; error: string };

/** A question put into the askee's inbox, and the answer its asker waits for. */
export type AskOutcome =
  | { ok: true; message: AgentMessage; questionId: string; answer: Promise<Answer> }
  | { ok: false; error: string };

/**
 * The inboxes of one session's agents: its root agent's and one per child the subagent runtime
 * started, keyed by agent run id (the ids run_subagent returns). A child's inbox accepts messages
 * while its task runs; once the task has ended the child is "finished" and a send is refused.
 */
export class MessageHub {
  private readonly inboxes = new Map<string, Inbox>();
  private readonly receiving = new Set<string>();
  /** The questions agents of this session put to each other and wait on (`ask`). */
  readonly questions: OpenQuestions;
  private nextId: number;

  /**
   * `first`: the numbers of the first message id (`msg_<n>`) and question id (`q_<n>`); a resumed
   * session starts past the ids its traces hold, so an id names one message in the session.
   */
  constructor(
    private readonly limits: InboxLimits = DEFAULT_INBOX_LIMITS,
    first: Partial<IdNumbers> = {},
  ) {
    this.nextId = first.message ?? 1;
    this.questions = new OpenQuestions(first.question ?? 1);
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

  /**
   * Puts a message into `to`'s inbox. With `replyTo` the message answers `to`'s open question of
   * that id instead: the asker's `ask` returns it, and it never waits in an inbox.
   */
  send(from: string, to: string, text: string, replyTo?: string): SendOutcome {
    if (replyTo !== undefined) return this.reply(from, to, text, replyTo);
    const checked = this.checkRecipient(from, to, text);
    if (!checked.ok) return checked;
    const message = this.message(from, to, text);
    const offered = checked.inbox.offer(message);
    return offered.ok ? { ok: true, message } : offered;
  }

  /** A launched child's report of its end to its launcher (see AgentMessage's `finished`). */
  report(from: string, to: string, text: string, finished: FinishedAgent): SendOutcome {
    const checked = this.checkRecipient(from, to, text);
    if (!checked.ok) return checked;
    const message: AgentMessage = { ...this.message(from, to, text), finished };
    const offered = checked.inbox.offer(message);
    return offered.ok ? { ok: true, message } : offered;
  }

  /** Puts a question into `to`'s inbox; its answer comes through `send` with `reply_to`. */
  ask(from: string, to: string, text: string): AskOutcome {
    const checked = this.checkRecipient(from, to, text);
    if (!checked.ok) return checked;
    const questionId = this.questions.nextId();
    const message = { ...this.message(from, to, text), questionId };
    const offered = checked.inbox.offer(message);
    if (!offered.ok) return offered;
    return { ok: true, message, questionId, answer: this.questions.register(questionId, from, to) };
  }

  /** The asker stopped waiting: the question closes, and leaves the askee's inbox if still unread. */
  withdraw(questionId: string, messageId: string): void {
    const withdrawn = this.questions.withdraw(questionId);
    if (withdrawn) this.inboxes.get(withdrawn.askee)?.remove(messageId);
  }

  private reply(from: string, to: string, text: string, replyTo: string): SendOutcome {
    if (text.trim() === "")
      return { ok: false, error: "send_message needs a non-empty text; nothing was sent." };
    const check = this.questions.check(from, to, replyTo);
    if (!check.ok) return check;
    const message = { ...this.message(from, to, text), replyTo };
    this.questions.answer(replyTo, { from, text, messageId: message.id });
    return { ok: true, message };
  }

  private message(from: string, to: string, text: string): AgentMessage {
    return {
      id: `${MESSAGE_ID_PREFIX}${this.nextId++}`,
      from,
      to,
      text,
      sentAt: new Date().toISOString(),
    };
  }

  private checkRecipient(
    from: string,
    to: string,
    text: string,
  ): { ok: true; inbox: Inbox } | { ok: false; error: string } {
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
    return { ok: true, inbox };
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

/** The first numbers of a session's message ids and question ids (see `nextIdNumbers`). */
export interface IdNumbers {
  message: number;
  question: number;
}

/** One agent's end of the hub: the tools of that agent's session send and wait as `self`. */
export interface Mailbox {
  hub: MessageHub;
  self: string;
  /** The agent run id of the agent that started `self` (`ask` goes there); absent for the root. */
  parent?: string;
  /** The root's: who answers its questions for the user (absent: nobody can). */
  user?: UserAnswerers;
}
