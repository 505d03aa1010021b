// "File-changing calls on the same path run one after another in call order, never
// interleaved." The engine starts calls in call order, so a FIFO queue per key, joined
// synchronously when a call starts, gives exactly that order.
//
// A call may change several paths (a patch over many files, a move's source and destination):
// it joins the queue of every one of its keys in the same synchronous step. No other call can
// join any queue in between, so in every queue the calls stand in the same relative order, their
// start order. A call therefore only ever waits for calls that started before it, never for a
// later one: two calls cannot wait on each other (whatever order each lists its keys in), and the
// earliest call still waiting always gets all of its keys once the calls before it finish.

export type Release = () => void;

/** A call's places in the queues of all its keys. */
export interface Places {
  /** Resolves once every key is held; the function releases them all (call it exactly once). */
  readonly held: Promise<Release>;
  /**
   * Gives every place up without using it: each queue moves on as soon as this call's turn in
   * it comes, without waiting for the other keys (for a call interrupted while waiting).
   */
  abandon(): void;
}

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

  /**
   * Joins the queues of all `keys` now, in one synchronous step (duplicates count once); see the
   * top of this file for why that can never deadlock.
   */
  acquireAll(keys: readonly string[]): Places {
    const turns = [...new Set(keys)].map((key) => this.acquire(key));
    const held = Promise.all(turns).then((releases) => () => {
      for (const release of releases) release();
    });
    return {
      held,
      abandon: () => {
        // A release is a promise's resolve: a second call (after `held` won a race) does nothing.
        for (const turn of turns) void turn.then((release) => release());
      },
    };
  }

  /** Keys with a holder or waiters (for tests and diagnostics). */
  get size(): number {
    return this.tails.size;
  }
}
