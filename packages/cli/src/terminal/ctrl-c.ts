/**
 * Ctrl-C during a task: the first press interrupts it (a pending approval is denied, running
 * commands stop, the session stays resumable); a second press before the task has ended exits
 * after the session is disposed, which ends every process group the session started.
 */
export class CtrlC {
  private presses = 0;
  private controller: AbortController | undefined;

  constructor(
    private readonly hooks: {
      /** A line to the user ("interrupting…"). */
      note(line: string): void;
      /** Ends the program (dispose first). */
      exit(): void;
    },
  ) {}

  /** A signal for the next task; Ctrl-C aborts it. */
  startTask(): AbortSignal {
    this.presses = 0;
    this.controller = new AbortController();
    return this.controller.signal;
  }

  endTask(): void {
    this.controller = undefined;
    this.presses = 0;
  }

  get taskRunning(): boolean {
    return this.controller !== undefined;
  }

  /**
   * Stops the running task for another reason than a key (its output went away, a signal asked
   * the program to end); returns false when no task runs. It counts as no press.
   */
  abort(reason: string): boolean {
    if (!this.controller) return false;
    this.controller.abort(new DOMException(reason, "AbortError"));
    return true;
  }

  /** Handles one press; returns false when no task runs (the caller decides what that means). */
  press(): boolean {
    if (!this.controller) return false;
    this.presses += 1;
    if (this.presses === 1) {
      this.hooks.note("interrupting… (press Ctrl-C again to exit)");
      this.controller.abort(new DOMException("interrupted by the user (Ctrl-C)", "AbortError"));
    } else {
      this.hooks.exit();
    }
    return true;
  }
}
