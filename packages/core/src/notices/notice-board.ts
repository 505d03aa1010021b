import { noticeDelivered, type OmniMessage, warningEvent } from "@penguin/protocol";
import type { EventHandler, NoticeDelivery, NoticesSettings } from "@penguin/state";
import type { HandlerCatalog } from "./handlers.js";
import { checkNotice, type NoticeInput, type NotifyOutcome, refused } from "./notice-input.js";
import { type Notice, type NoticeMessage, noticeMessage } from "./notice-text.js";
import { WakeCap } from "./wake-cap.js";

// One session's pending notices. A notice is taken by the handler its type matches (or dropped),
// waits here (bounded: "oldest dropped and counted"), and reaches the model at the next turn
// boundary, the engine's `BoundaryInput`: before the next model request of a running task, or
// with the next task when the session is idle. A `wake` handler's notice also asks the session
// to start a turn while it is idle, "capped per hour"; past the cap it waits as a queued one.

/** Notice ids are `ntc_<n>`, numbered per session object. */
export const NOTICE_ID_PREFIX = "ntc_";

/** How the board reaches its session: set by the session that owns it. */
export interface NoticeDriver {
  /** No task or compaction runs: a wake may start a turn. */
  idle(): boolean;
  /** Whether someone starts wake turns (an `onWake` listener); without one, wake notices wait. */
  canWake(): boolean;
  /** Starts a wake turn (its first boundary delivers the pending notices). */
  wake(notices: readonly PendingNoticeInfo[]): void;
}

export interface PendingNoticeInfo {
  id: string;
  type: string;
  handler: string;
}

export interface NoticeBoardOptions {
  handlers: HandlerCatalog;
  settings: NoticesSettings;
  /**
   * Records an event that happens outside a task (a wake past the cap): the session traces it and
   * streams it first with its next run.
   */
  record(message: OmniMessage): void;
  now?: () => number;
}

interface Pending {
  notice: Notice;
  handler: EventHandler;
  /** A wake notice that met the hourly cap: it waits as a queued one. */
  demoted: boolean;
}

/** A notice for the context, with the event that records its delivery (the engine's `BoundaryDelivery`). */
export interface NoticeDeliveryRecord {
  event: OmniMessage;
  message: NoticeMessage;
}

/** The engine takes the board as its `BoundaryInput` (`take`), without either importing the other. */
export class NoticeBoard {
  private readonly pending: Pending[] = [];
  private readonly cap: WakeCap;
  private readonly now: () => number;
  private driver: NoticeDriver | undefined;
  private nextId = 1;
  private droppedTotal = 0;
  /** Dropped since the last delivery: the next `notice_delivered` says how many. */
  private droppedUndelivered = 0;
  /** A wake turn was asked for and has not ended. */
  private waking = false;
  /** The wake turn has not reached its first boundary: the notices it takes there are its prompt. */
  private wakePrompt = false;
  private closed = false;

  constructor(private readonly options: NoticeBoardOptions) {
    this.now = options.now ?? Date.now;
    this.cap = new WakeCap(options.settings.wakes_per_hour, this.now);
  }

  /** The handlers notices are matched against (change_directory adds a directory's). */
  get handlers(): HandlerCatalog {
    return this.options.handlers;
  }

  /** Notices waiting for a turn boundary. */
  get pendingCount(): number {
    return this.pending.length;
  }

  /** Notices dropped because `notices.max_pending` were already waiting (oldest first). */
  get droppedCount(): number {
    return this.droppedTotal;
  }

  connect(driver: NoticeDriver): void {
    this.driver = driver;
  }

  /** A notice from outside (SDK, server route, CLI): refused with the reason when it cannot be taken. */
  notify(input: NoticeInput): NotifyOutcome {
    return this.accept(input, "outside");
  }

  /** One of Penguin's own notices (`job.exited`, `agent.finished`): dropped silently when no handler takes it. */
  post(input: NoticeInput): void {
    this.accept(input, "penguin");
  }

  private accept(input: NoticeInput, from: Notice["from"]): NotifyOutcome {
    if (this.closed) return refused("closed", "the session is closed and takes no notices");
    const checked = checkNotice(input, from === "outside");
    if (!checked.ok) return checked.refusal;
    const handler = this.options.handlers.handlerFor(input.type);
    if (!handler) {
      return refused(
        "no_handler",
        `no event handler takes notices of type ${input.type}: add .agents/events/<name>.md with type: ${input.type} to the agent's events folder`,
      );
    }
    const notice: Notice = {
      id: `${NOTICE_ID_PREFIX}${this.nextId++}`,
      type: input.type,
      summary: input.summary,
      ...(checked.data !== undefined ? { data: checked.data } : {}),
      from,
      receivedAt: new Date(this.now()).toISOString(),
    };
    this.enqueue({ notice, handler, demoted: false });
    return { status: "accepted", noticeId: notice.id, handler: handler.name, delivery: handler.delivery };
  }

  private enqueue(entry: Pending): void {
    this.pending.push(entry);
    while (this.pending.length > this.options.settings.max_pending) {
      this.pending.shift();
      this.droppedTotal += 1;
      this.droppedUndelivered += 1;
    }
    if (entry.handler.delivery === "wake") this.maybeWake();
  }

  /** Every pending notice, for the turn boundary now: each with its `notice_delivered` event. */
  take(): NoticeDeliveryRecord[] {
    const wakeTurn = this.wakePrompt;
    this.wakePrompt = false;
    const taken = this.pending.splice(0);
    return taken.map(({ notice, handler, demoted }) => {
      const delivery: NoticeDelivery = wakeTurn && handler.delivery === "wake" && !demoted ? "wake" : "queue";
      return {
        event: this.deliveredEvent(notice, handler, delivery),
        message: noticeMessage(notice, handler, delivery),
      };
    });
  }

  private deliveredEvent(notice: Notice, handler: EventHandler, delivery: NoticeDelivery) {
    const dropped = this.droppedUndelivered;
    this.droppedUndelivered = 0;
    return noticeDelivered({
      notice_id: notice.id,
      notice_type: notice.type,
      handler: handler.name,
      delivery,
      summary: notice.summary,
      ...(notice.data !== undefined ? { data: notice.data } : {}),
      ...(dropped > 0 ? { dropped_before: dropped } : {}),
    });
  }

  /** The session's task (or compaction) ended: a wake notice that came meanwhile may start a turn now. */
  idleAgain(): void {
    this.waking = false;
    this.wakePrompt = false;
    this.maybeWake();
  }

  /** Takes no more notices (the session is disposed). */
  close(): void {
    this.closed = true;
    this.pending.splice(0);
  }

  private maybeWake(): void {
    const driver = this.driver;
    if (this.closed || this.waking || !driver?.idle() || !driver.canWake()) return;
    const due = this.pending.filter((entry) => entry.handler.delivery === "wake" && !entry.demoted);
    if (due.length === 0) return;
    if (!this.cap.take()) {
      for (const entry of due) entry.demoted = true;
      const ids = due.map((entry) => entry.notice.id).join(", ");
      this.options.record(
        warningEvent(
          "notices",
          `notices.wakes_per_hour (${this.cap.perHour}) wake turns already started in the last hour: ${ids} wait as queued notices, delivered with the next task`,
        ),
      );
      return;
    }
    this.waking = true;
    this.wakePrompt = true;
    driver.wake(
      due.map((entry) => ({ id: entry.notice.id, type: entry.notice.type, handler: entry.handler.name })),
    );
  }
}
