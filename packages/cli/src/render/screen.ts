/**
 * Everything the CLI prints during a task goes through one Screen, so the live status line (a
 * spinner with what runs and for how long) can be taken down before a write and put back after
 * it. The status line is drawn only on a terminal; on a pipe or file every write is a plain line.
 */

/** Something that owns the bottom line, e.g. the chat's line editor with what the user is typing. */
export interface BottomLine {
  /** Draws `status` (may be empty) at the start of the current line, plus whatever it adds. */
  draw(status: string): void;
  /** Erases what `draw` drew. */
  erase(): void;
}

/** How often the spinner and the elapsed seconds are redrawn on a terminal. */
export const STATUS_REFRESH_MS = 100;

/** Spinner frames; one per refresh. */
const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

export interface ScreenOptions {
  out: NodeJS.WritableStream;
  err: NodeJS.WritableStream;
  /** Draw the status line (only when stderr is a terminal). */
  live: boolean;
  /** Owns the bottom line instead of a plain status line (chat). */
  bottom?: BottomLine;
}

export class Screen {
  private shown = false;
  private atLineStart = true;
  private timer: NodeJS.Timeout | undefined;
  private frame = 0;
  private statusOf: () => string | undefined = () => undefined;
  private paused = false;

  constructor(private readonly opts: ScreenOptions) {}

  get live(): boolean {
    return this.opts.live;
  }

  /** Where the status text comes from (without the spinner); undefined: no activity to show. */
  setStatusSource(source: () => string | undefined): void {
    this.statusOf = source;
  }

  /** Writes to stdout (`out`) or stderr (`err`), keeping the status line out of the way. */
  write(to: "out" | "err", text: string): void {
    if (text.length === 0) return;
    this.hide();
    this.opts[to].write(text);
    this.atLineStart = text.endsWith("\n");
    this.show();
  }

  /** Ends a line that streamed text left open. */
  endLine(): void {
    if (!this.atLineStart) this.write("out", "\n");
  }

  get isAtLineStart(): boolean {
    return this.atLineStart;
  }

  /** Starts redrawing the spinner (a terminal only). */
  start(): void {
    if (!this.opts.live || this.timer) return;
    this.timer = setInterval(() => {
      this.frame = (this.frame + 1) % FRAMES.length;
      this.refresh();
    }, STATUS_REFRESH_MS);
    this.timer.unref();
    this.refresh();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.hide();
  }

  /** For good: nothing more is drawn on the bottom line (the chat is ending). */
  close(): void {
    this.stop();
    this.paused = true;
  }

  /** Takes the status line down while something else owns the terminal (a question). */
  pause(): void {
    this.hide();
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.refresh();
  }

  /** Redraws the status line now (after the status changed). */
  refresh(): void {
    if (!this.opts.live || this.paused || !this.atLineStart) return;
    this.hide();
    this.show();
  }

  private statusText(): string {
    const status = this.statusOf();
    return status === undefined ? "" : `${FRAMES[this.frame]} ${status}`;
  }

  private hide(): void {
    if (!this.shown) return;
    if (this.opts.bottom) this.opts.bottom.erase();
    else this.opts.err.write("\r\u001b[2K");
    this.shown = false;
  }

  private show(): void {
    if (!this.opts.live || this.paused || !this.atLineStart) return;
    const text = this.statusText();
    if (this.opts.bottom) {
      this.opts.bottom.draw(text);
      this.shown = true;
    } else if (text) {
      this.opts.err.write(text);
      this.shown = true;
    }
  }
}
