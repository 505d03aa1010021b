/**
 * Callers waiting for news from something that runs on its own (a command session, a
 * subagent): a wait ends on the next `wake`, after its time, or when its signal aborts,
 * whichever comes first, and leaves nothing behind (no timer, no listener).
 */
export class ActivityWaiters {
  private readonly waiters = new Set<() => void>();

  /** Resolves at once when there is no time to wait or the signal has aborted already. */
  wait(ms: number, signal?: AbortSignal): Promise<void> {
    if (ms <= 0 || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
      signal?.addEventListener("abort", done, { once: true });
    });
  }

  /** Ends every wait now. */
  wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}
