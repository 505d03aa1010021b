// "`wake` starts a turn when the session is idle, capped per hour (configurable)": the cap counts
// the wake turns of the last hour, a sliding window (not a clock hour that resets at :00).

export const WAKE_WINDOW_MS = 60 * 60 * 1000;

export class WakeCap {
  private readonly starts: number[] = [];

  constructor(
    readonly perHour: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts a wake now when the last hour has room for it; false when it has not. */
  take(): boolean {
    const now = this.now();
    while (this.starts.length > 0 && (this.starts[0] ?? now) <= now - WAKE_WINDOW_MS) this.starts.shift();
    if (this.starts.length >= this.perHour) return false;
    this.starts.push(now);
    return true;
  }
}
