import {
  errorMessage,
  isPayload,
  type OmniMessage,
  type StopReason,
  type TokenCounts,
  withOrigin,
} from "@penguin/protocol";
import { ROOT_AGENT_RUN_ID } from "@penguin/state";
import type { Approver } from "../../approval/approver.js";
import { ActivityWaiters } from "../../processes/activity-waiters.js";
import { UnreadBuffer } from "../../processes/unread-buffer.js";
import { ApprovalWatch, type PendingApproval } from "./approval-watch.js";
import { LiveRelay, type SubagentFeed } from "./live-relay.js";
import type {
  ChildPlacement,
  ChildSession,
  SubagentInfo,
  SubagentStatus,
  TaskOutcome,
  UsageSink,
} from "./types.js";

/** A child run_subagent started: the root's, one level down. */
export const RUN_SUBAGENT_PLACEMENT: ChildPlacement = {
  parent: ROOT_AGENT_RUN_ID,
  depth: 1,
  launched: false,
};

let useCounter = 0;
const nextUseOrder = () => ++useCounter;

export interface SubagentOptions {
  id: string;
  sessionId: string;
  /** Where it sits in the session's agent tree; default a run_subagent child of the root. */
  placement?: ChildPlacement;
  /** Absent for a child found in a resumed parent's trace (until a follow-up reopens it). */
  session?: ChildSession;
  unreadBufferChars?: number;
  onUsage?: UsageSink;
  /**
   * Told when a task starts (true) and ends (false): the child's inbox receives messages only
   * while it runs.
   */
  onRunningChange?: (running: boolean) => void;
  /** For a restored child: its state as its trace tells it. */
  restored?: { status: "idle" | "interrupted"; lastTask?: TaskOutcome; answer?: string };
}

/**
 * One child session of a parent session, driven by run_subagent and input_subagent. Its task
 * runs on its own (the child's stream is always consumed, whether or not a call follows it): a
 * call that follows it streams the child's messages into the parent, tagged with `origin` (see
 * live-relay.ts for how the framing stays whole); while no call follows it, its complete
 * messages wait in a bounded backlog and its assistant text in a
 * bounded unread buffer ("a producer such as a command or subagent session may already have
 * replaced overflow with an [..., N chars of earlier output dropped ...] marker").
 */
export class Subagent {
  readonly id: string;
  readonly sessionId: string;
  readonly placement: ChildPlacement;
  /** Tool calls currently following this subagent; one in use is never evicted. */
  activeCalls = 0;
  useOrder = nextUseOrder();

  private session: ChildSession | undefined;
  private state: SubagentStatus;
  private outcome: TaskOutcome | undefined;
  private answer: string | undefined;
  private answerTaken = false;
  private controller: AbortController | undefined;
  private done: Promise<void> = Promise.resolve();
  private readonly unread: UnreadBuffer;
  private readonly approvals: ApprovalWatch;
  private readonly onUsage: UsageSink | undefined;
  private readonly onRunningChange: ((running: boolean) => void) | undefined;
  private readonly relay = new LiveRelay();
  private readonly activity = new ActivityWaiters();

  constructor(options: SubagentOptions) {
    this.id = options.id;
    this.sessionId = options.sessionId;
    this.placement = options.placement ?? RUN_SUBAGENT_PLACEMENT;
    this.session = options.session;
    this.unread = new UnreadBuffer(options.unreadBufferChars);
    this.onUsage = options.onUsage;
    this.onRunningChange = options.onRunningChange;
    this.approvals = new ApprovalWatch(() => this.activity.wake());
    this.state = options.restored?.status ?? "idle";
    this.outcome = options.restored?.lastTask;
    this.answer = options.restored?.answer;
  }

  get status(): SubagentStatus {
    return this.state;
  }

  /** How the most recent task ended; undefined while it runs (or before any). */
  get lastTask(): TaskOutcome | undefined {
    return this.outcome;
  }

  /** The last assistant text of the task that ended (or runs), without taking it. */
  get finalAnswer(): string | undefined {
    return this.answer;
  }

  /** Whether a live child session is attached (a restored child has none until a follow-up). */
  get hasSession(): boolean {
    return this.session !== undefined;
  }

  get pendingApprovals(): PendingApproval[] {
    return this.approvals.list();
  }

  info(): SubagentInfo {
    const info: SubagentInfo = {
      subagentId: this.id,
      sessionId: this.sessionId,
      status: this.state,
      pendingApprovals: this.approvals.list(),
      parent: this.placement.parent,
      depth: this.placement.depth,
    };
    if (this.placement.agent !== undefined) info.agent = this.placement.agent;
    if (this.outcome) info.lastTask = { ...this.outcome };
    return info;
  }

  touch(): void {
    this.useOrder = nextUseOrder();
  }

  /** Attaches the reopened session of a restored child. */
  attachSession(session: ChildSession): void {
    if (session.id !== this.sessionId) {
      throw new Error(`session ${session.id} is not the session of subagent ${this.id} (${this.sessionId})`);
    }
    this.session = session;
  }

  /**
   * Starts a task with the parent's approval callback. Refused (with the reason) while a task
   * runs, after disposal, or without a session.
   */
  startTask(prompt: string, approve: Approver | undefined): { ok: true } | { ok: false; error: string } {
    if (this.state === "running") return { ok: false, error: `subagent ${this.id} is still running` };
    if (this.state === "disposed") return { ok: false, error: `subagent ${this.id} has been disposed` };
    const session = this.session;
    if (!session) return { ok: false, error: `subagent ${this.id} has no session` };
    const controller = new AbortController();
    let stream: AsyncIterable<OmniMessage>;
    try {
      stream = session.run(prompt, {
        approve: this.approvals.wrap(approve),
        signal: controller.signal,
        sender: "parent_agent",
      });
    } catch (error) {
      return { ok: false, error: `subagent ${this.id} could not start its task: ${errorMessage(error)}` };
    }
    this.unread.take(); // text of an earlier task that nobody read is not this task's output
    this.answer = undefined;
    this.answerTaken = false;
    this.outcome = undefined;
    this.controller = controller;
    this.state = "running";
    this.onRunningChange?.(true);
    this.done = this.pump(stream);
    this.activity.wake();
    return { ok: true };
  }

  /** Interrupts the running task (the child records `abort` and a `task_end`). */
  interrupt(reason: string): void {
    if (this.state === "running") this.controller?.abort(new Error(reason));
  }

  /**
   * Stops the child without disposing it: interrupts its running task, waits for the task to end,
   * then ends the process group of every command and job it started that still has a live
   * process (children a shell left behind included). A follow-up prompt can continue it
   * afterwards. Resolves with how many process groups were ended.
   */
  async stop(reason: string): Promise<number> {
    this.interrupt(reason);
    await this.done;
    return (await this.session?.processes?.endLiveGroups()) ?? 0;
  }

  /** Resolves once the running task (if any) has ended, or after `ms`. */
  async settled(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.done, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
    clearTimeout(timer);
  }

  /** Ends the child: its task, its processes, its trace. */
  async dispose(): Promise<void> {
    if (this.state === "disposed") return;
    const wasRunning = this.state === "running";
    this.state = "disposed";
    if (wasRunning) this.controller?.abort(new Error("the parent session ended the subagent"));
    await this.session?.dispose();
    await this.done;
    this.activity.wake();
  }

  /** Follows the child: messages from now on (after what waited in the backlog) until `close`. */
  subscribe(): SubagentFeed {
    return this.relay.subscribe();
  }

  /** Resolves on the child's next message, status or approval change, after `ms`, or on abort. */
  waitForActivity(ms: number, signal?: AbortSignal): Promise<void> {
    return this.activity.wait(ms, signal);
  }

  /** The child's assistant text nobody has read yet (bounded, with the dropped-text marker). */
  takeUnread(): string {
    return this.unread.take();
  }

  /**
   * What a call returns once the task has ended: "the child's final answer (its last assistant
   * text)", once; a task that ended without one hands back whatever it said that was not read.
   */
  takeFinalOutput(): string {
    const rest = this.unread.take();
    if (this.answer === undefined) return rest;
    if (this.answerTaken) return "";
    this.answerTaken = true;
    return this.answer;
  }

  private async pump(stream: AsyncIterable<OmniMessage>): Promise<void> {
    try {
      for await (const message of stream) this.observe(message);
    } catch (error) {
      this.outcome ??= { status: "failed", message: `the subagent's session failed: ${errorMessage(error)}` };
    } finally {
      this.relay.flush();
      this.outcome ??= { status: "aborted", message: "the subagent's task ended without a result" };
      if (this.state === "running") this.state = "idle";
      this.controller = undefined;
      this.onRunningChange?.(false);
      this.activity.wake();
    }
  }

  private observe(message: OmniMessage): void {
    if (message.origin === undefined || message.origin.length === 0) this.note(message);
    this.relay.deliver(withOrigin(message, this.sessionId));
    this.activity.wake();
  }

  /** What the tools need from the child's own messages: its text, usage and how the task ended. */
  private note(message: OmniMessage): void {
    if (isPayload(message, "text")) {
      const { role, text } = message.payload;
      if (role !== "assistant" || text.trim() === "") return;
      this.answer = text;
      this.unread.append(text.endsWith("\n") ? text : `${text}\n`);
      return;
    }
    if (message.type !== "event_msg") return;
    const payload = message.payload as { type: string };
    if (payload.type === "token_usage") {
      const usage = message.payload as { request: TokenCounts; request_cost_usd?: number };
      this.onUsage?.(usage.request, usage.request_cost_usd);
    } else if (payload.type === "task_end") {
      const end = message.payload as { status: StopReason; message?: string };
      this.outcome = end.message ? { status: end.status, message: end.message } : { status: end.status };
    }
  }
}
