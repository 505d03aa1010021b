/**
 * Writes run one after another, in the order they were queued: on a database with a pool of
 * connections two writes in flight may land in either order, and the "idle" of a task that just
 * ended must never land after the "running" of the next. A failed write is reported and does not
 * stop the ones queued after it.
 */
export class WriteQueue {
  #tail: Promise<void> = Promise.resolve();

  constructor(private readonly onFailure: (error: unknown) => void) {}

  /** Queues `write` after every write queued before it and after `after`; settles once it is done. */
  push(write: () => Promise<unknown>, after: Promise<void> = Promise.resolve()): Promise<void> {
    const done = this.#tail
      .then(() => after)
      .then(write)
      .then(
        () => undefined,
        (error: unknown) => this.onFailure(error),
      );
    this.#tail = done;
    return done;
  }

  /** Settles once every write queued so far is done. */
  drained(): Promise<void> {
    return this.#tail;
  }
}
