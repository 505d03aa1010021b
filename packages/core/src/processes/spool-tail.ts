import { closeSync, fstatSync, openSync, readSync } from "node:fs";

/** How often a spool file is checked for new output while its command runs. */
export const SPOOL_POLL_MS = 20;
/** Bytes read per system call. */
const READ_CHUNK_BYTES = 64 * 1024;
/** Bytes read per poll at most, so a flood of output cannot stall the event loop. */
const MAX_BYTES_PER_POLL = 4 * 1024 * 1024;

/**
 * Follows a file that a command writes its output to (its spool), handing each new piece of bytes
 * to `onBytes`. The command writes to the file itself, not through a pipe to Penguin, so it keeps
 * running (and its output keeps being kept) if Penguin dies; Penguin reads what arrived by polling.
 */
export class SpoolTail {
  private fd: number | undefined;
  private position: number;
  private timer: NodeJS.Timeout | undefined;
  private readonly buffer = Buffer.alloc(READ_CHUNK_BYTES);

  constructor(
    file: string,
    private readonly onBytes: (bytes: Uint8Array) => void,
    options: { fromByte?: number } = {},
  ) {
    try {
      this.fd = openSync(file, "r");
    } catch {
      this.fd = undefined; // no spool (removed, never written): nothing to follow
    }
    this.position = options.fromByte ?? 0;
  }

  /** Size of the file now, in bytes (0 without one). */
  static sizeOf(file: string): number {
    try {
      const fd = openSync(file, "r");
      try {
        return fstatSync(fd).size;
      } finally {
        closeSync(fd);
      }
    } catch {
      return 0;
    }
  }

  /** Starts polling; the timer never keeps the process alive. */
  start(): void {
    if (this.timer || this.fd === undefined) return;
    this.timer = setInterval(() => this.readAvailable(MAX_BYTES_PER_POLL), SPOOL_POLL_MS);
    this.timer.unref();
  }

  /** Reads everything written so far (once the command has exited, nothing more comes). */
  drain(): void {
    this.readAvailable(Number.POSITIVE_INFINITY);
  }

  /** Stops polling and closes the file, after reading what is there. */
  stop(): void {
    this.drain();
    clearInterval(this.timer);
    this.timer = undefined;
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private readAvailable(maxBytes: number): void {
    if (this.fd === undefined) return;
    let budget = maxBytes;
    while (budget > 0) {
      let count: number;
      try {
        count = readSync(this.fd, this.buffer, 0, this.buffer.length, this.position);
      } catch {
        return;
      }
      if (count === 0) return;
      this.position += count;
      budget -= count;
      this.onBytes(this.buffer.subarray(0, count));
    }
  }
}
