import { closeSync, type FSWatcher, openSync, readSync, statSync, watch } from "node:fs";

/**
 * How often a followed spool is read even without a change notification: a safety net for file
 * systems and platforms whose notifications are missing or late. New output normally arrives at
 * once, woken by the notification of the write.
 */
export const SPOOL_FALLBACK_POLL_MS = 500;
/** Bytes read per system call. */
const READ_CHUNK_BYTES = 64 * 1024;
/** Bytes read per turn of the event loop at most, so a flood of output cannot stall it. */
const MAX_BYTES_PER_TURN = 4 * 1024 * 1024;

/**
 * Follows a file that a command writes its output to (its spool), handing each new piece of bytes
 * to `onBytes`. The command writes to the file itself, not through a pipe to Penguin, so it keeps
 * running (and its output keeps being kept) if Penguin dies. Penguin reads what arrived when the
 * file system reports a change (inotify on Linux), so an idle job costs no wake-ups, and polls
 * slowly besides, in case a notification never comes.
 */
export class SpoolTail {
  private fd: number | undefined;
  private position: number;
  private timer: NodeJS.Timeout | undefined;
  private watcher: FSWatcher | undefined;
  private readScheduled = false;
  private readonly fallbackPollMs: number;
  private readonly buffer = Buffer.alloc(READ_CHUNK_BYTES);

  constructor(
    private readonly file: string,
    private readonly onBytes: (bytes: Uint8Array) => void,
    options: { fromByte?: number; fallbackPollMs?: number } = {},
  ) {
    try {
      this.fd = openSync(file, "r");
    } catch {
      this.fd = undefined; // no spool (removed, never written): nothing to follow
    }
    this.position = options.fromByte ?? 0;
    this.fallbackPollMs = options.fallbackPollMs ?? SPOOL_FALLBACK_POLL_MS;
  }

  /** Size of the file now, in bytes (0 without one). */
  static sizeOf(file: string): number {
    try {
      return statSync(file).size;
    } catch {
      return 0;
    }
  }

  /** Starts following; neither the watch nor the timer keeps the process alive. */
  start(): void {
    if (this.timer || this.fd === undefined) return;
    try {
      this.watcher = watch(this.file, { persistent: false }, () => this.scheduleRead());
      this.watcher.on("error", () => this.unwatch()); // the slow poll goes on alone
    } catch {
      this.watcher = undefined; // no notifications here: the slow poll alone
    }
    this.timer = setInterval(() => this.scheduleRead(), this.fallbackPollMs);
    this.timer.unref();
  }

  /** Reads everything written so far (once the command has exited, nothing more comes). */
  drain(): void {
    this.readAvailable(Number.POSITIVE_INFINITY);
  }

  /** Stops following and closes the file, after reading what is there. */
  stop(): void {
    this.drain();
    this.unwatch();
    clearInterval(this.timer);
    this.timer = undefined;
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private unwatch(): void {
    this.watcher?.close();
    this.watcher = undefined;
  }

  /**
   * One read per turn of the event loop however many notifications came (a command printing fast
   * sends one per write), and another turn while a flood goes beyond one turn's budget.
   */
  private scheduleRead(): void {
    if (this.readScheduled) return;
    this.readScheduled = true;
    setImmediate(() => {
      this.readScheduled = false;
      if (this.readAvailable(MAX_BYTES_PER_TURN)) this.scheduleRead();
    }).unref();
  }

  /** Reads up to `maxBytes` of new output; true when it stopped at the budget with more to read. */
  private readAvailable(maxBytes: number): boolean {
    let budget = maxBytes;
    while (budget > 0) {
      if (this.fd === undefined) return false;
      let count: number;
      try {
        count = readSync(this.fd, this.buffer, 0, this.buffer.length, this.position);
      } catch {
        return false;
      }
      if (count === 0) return false;
      this.position += count;
      budget -= count;
      this.onBytes(this.buffer.subarray(0, count));
    }
    return true;
  }
}
