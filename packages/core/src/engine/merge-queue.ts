/**
 * One merged stream from many producers: the model stream and every running tool push into the
 * queue, and a single consumer takes items in arrival order. The queue ends once it is closed
 * (no new producers will come) and every producer has finished.
 */
export class MergeQueue<T> {
  private readonly items: T[] = [];
  private waiting: (() => void) | undefined;
  private producers = 0;
  private closed = false;

  /**
   * @param onPush sees every item the moment it is pushed, before any consumer does: the turn
   *   records to the trace here, so a record is durable before the producer's next step (the
   *   journal's rule) and not only once a slow consumer gets to it.
   */
  constructor(private readonly onPush?: (item: T) => void) {}

  push(item: T): void {
    this.onPush?.(item);
    this.items.push(item);
    this.wake();
  }

  /**
   * Runs a producer; the queue stays open until it settles. A producer must not throw (the seams
   * it wraps never do); if one does anyway, the error is handed to `onError` instead of being lost.
   */
  run(producer: () => Promise<void>, onError: (error: unknown) => void): void {
    this.producers++;
    producer()
      .catch(onError)
      .finally(() => {
        this.producers--;
        this.wake();
      });
  }

  /** No producer will be added after this; the queue ends when the running ones finish. */
  close(): void {
    this.closed = true;
    this.wake();
  }

  async *drain(): AsyncGenerator<T, void, undefined> {
    while (true) {
      const item = this.items.shift();
      if (item !== undefined) {
        yield item;
        continue;
      }
      if (this.closed && this.producers === 0) return;
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
      });
    }
  }

  private wake(): void {
    const resolve = this.waiting;
    this.waiting = undefined;
    resolve?.();
  }
}
