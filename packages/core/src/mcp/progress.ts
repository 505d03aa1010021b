import { MCP_PROGRESS_LINE_MAX_CHARS, MCP_PROGRESS_MAX_LINES } from "./limits.js";

// MCP progress notifications (`notifications/progress` for the token Penguin sends with each
// call) as lines of the call's output. They stream as partial output while the tool runs, so the
// terminal and the web UI show them live, and they stay in the complete output (which is exactly
// the concatenation of the streamed deltas), so the model knows what the server reported too.

/** The parameters of one progress notification, as the MCP SDK hands them over. */
export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

/** `[progress 3/10] Indexing src/` (or `[progress 3]` without a total, or without a message). */
export function progressLine(update: ProgressUpdate): string {
  const amount = update.total === undefined ? `${update.progress}` : `${update.progress}/${update.total}`;
  const message = (update.message ?? "").replace(/\s+/g, " ").trim();
  const line = message === "" ? `[progress ${amount}]` : `[progress ${amount}] ${message}`;
  return line.length > MCP_PROGRESS_LINE_MAX_CHARS
    ? `${line.slice(0, MCP_PROGRESS_LINE_MAX_CHARS - 1)}…`
    : line;
}

/** How the work a feed follows ended. */
export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/**
 * Collects a call's progress notifications (they arrive as callbacks while the call runs) and
 * hands them to the tool's generator as lines. A line repeating the one before is dropped;
 * past `MCP_PROGRESS_MAX_LINES` lines only their number is kept.
 */
export class ProgressFeed {
  private queued: string[] = [];
  private wake: (() => void) | undefined;
  private last: string | undefined;
  private accepted = 0;
  private leftOut = 0;

  /** For the SDK's `onprogress`. */
  readonly push = (update: ProgressUpdate): void => {
    const line = progressLine(update);
    if (line === this.last) return;
    this.last = line;
    if (this.accepted >= MCP_PROGRESS_MAX_LINES) {
      this.leftOut += 1;
      return;
    }
    this.accepted += 1;
    this.queued.push(`${line}\n`);
    this.wake?.();
  };

  /**
   * Yields progress lines as they arrive until `work` settles, then the lines still queued and a
   * note of those left out; returns how `work` ended (it never throws).
   */
  async *follow<T>(work: Promise<T>): AsyncGenerator<string, Settled<T>> {
    let settled: Settled<T> | undefined;
    const done = work.then(
      (value) => {
        settled = { ok: true, value };
      },
      (error: unknown) => {
        settled = { ok: false, error };
      },
    );
    while (settled === undefined) {
      const arrived = new Promise<void>((resolve) => {
        this.wake = resolve;
      });
      if (this.queued.length === 0) await Promise.race([done, arrived]);
      this.wake = undefined;
      yield* this.drain();
    }
    yield* this.drain();
    if (this.leftOut > 0) {
      yield `[${this.leftOut} more progress notification${this.leftOut === 1 ? "" : "s"} left out]\n`;
      this.leftOut = 0;
    }
    return settled;
  }

  private *drain(): Generator<string> {
    const lines = this.queued;
    this.queued = [];
    yield* lines;
  }
}

/**
 * A connection's progress tokens, each routed to the call that sent it. Penguin sends its own
 * token instead of the SDK's `onprogress`: the SDK hands a notification to its handler a
 * microtask after reading it, but drops the call's handler as soon as the call's response is
 * read, so notifications that arrived in the same chunk as the response (a short call, or a
 * server that reports its last step just before answering) were lost.
 */
export class ProgressRoutes {
  private issued = 0;
  private readonly routes = new Map<string, (update: ProgressUpdate) => void>();

  /** A new token for one call; `close` once the call has settled. */
  open(onProgress: (update: ProgressUpdate) => void): { token: string; close(): void } {
    this.issued += 1;
    const token = `penguin-progress-${this.issued}`;
    this.routes.set(token, onProgress);
    return { token, close: () => this.routes.delete(token) };
  }

  /** A `notifications/progress`; one for a token no call holds (any more) is ignored. */
  deliver(params: { progressToken: string | number } & ProgressUpdate): void {
    const { progressToken, progress, total, message } = params;
    this.routes.get(String(progressToken))?.({
      progress,
      ...(total !== undefined ? { total } : {}),
      ...(message !== undefined ? { message } : {}),
    });
  }
}
