import type { OmniMessage } from "@penguin/protocol";
import type { NoticeBoard, PendingNoticeInfo } from "../notices/index.js";
import type { RunOptions } from "./run-options.js";

// Wake turns: "`wake` starts a turn when the session is idle". Nobody calls `run` for it, so the
// session hands the turn to whoever embeds it: an `onWake` listener gets a `WakeTurn` and reads
// its stream (the server publishes it like any task; an SDK program reads it as it reads a run).
// Without a listener, wake notices wait like queued ones and reach the model with the next task.

/** The options of a wake turn: a run's, without a goal (the turn's input is its notices). */
export type WakeRunOptions = Omit<RunOptions, "goal" | "sender">;

/** A turn a `wake` notice asks for. */
export interface WakeTurn {
  /** The wake notices that asked for it; the turn delivers every pending notice. */
  notices: readonly PendingNoticeInfo[];
  /**
   * Starts the turn and returns its stream, as `session.run` does (read it to its end; it ends
   * with `task_end`). Once per turn; throws when a task started meanwhile (the notices then go
   * with that task).
   */
  run(options?: WakeRunOptions): AsyncIterable<OmniMessage>;
}

export type WakeListener = (turn: WakeTurn) => void;

/** What the session gives its wake turns. */
export interface WakeHost {
  idle(): boolean;
  runWake(options: WakeRunOptions): AsyncIterable<OmniMessage>;
}

export class WakeTurns {
  private readonly listeners = new Set<WakeListener>();

  constructor(board: NoticeBoard, host: WakeHost) {
    board.connect({
      idle: () => host.idle(),
      canWake: () => this.listeners.size > 0,
      // After the current call stack: the task that just ended has finished its bookkeeping.
      wake: (notices) => setImmediate(() => this.offer(notices, host)),
    });
  }

  listen(listener: WakeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private offer(notices: readonly PendingNoticeInfo[], host: WakeHost): void {
    // A task that started meanwhile takes the notices at its first boundary: no wake turn then.
    if (!host.idle()) return;
    let started = false;
    const turn: WakeTurn = {
      notices,
      run: (options = {}) => {
        if (started) throw new Error("this wake turn has already been started");
        started = true;
        return host.runWake(options);
      },
    };
    for (const listener of this.listeners) listener(turn);
  }
}
