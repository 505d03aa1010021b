// "File-changing calls on the same path run one after another in call order, never
// interleaved." The engine starts calls in call order, so a FIFO queue per key, joined
// synchronously when a call starts, gives exactly that order.

export type Release = () => void;

export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();

  /**
   * Joins the queue for `key` now (synchronously, so start order is queue order) and resolves
   * once every earlier holder has released. Call the returned function exactly once.
   */
  acquire(key: string): Promise<Release> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: Release;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => mine);
    this.tails.set(key, tail);
    // Forget the key once the queue has drained, so the map does not grow with every path ever edited.
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return previous.then(() => release);
  }

  /** Keys with a holder or waiters (for tests and diagnostics). */
  get size(): number {
    return this.tails.size;
  }
}
