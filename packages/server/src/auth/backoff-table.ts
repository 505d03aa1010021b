/** The shape of a backoff: free failures, then a doubling delay up to a cap. */
export interface BackoffShape {
  freeAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Records kept at once; memory stays bounded whatever a flood sends. */
  maxTracked: number;
}

interface FailureRecord {
  failures: number;
  /** Epoch milliseconds before which no attempt for this key is checked. */
  blockedUntil: number;
  lastFailure: number;
}

/**
 * Failure records per key (a username, a client address) with a doubling backoff. The map is
 * bounded, but a record whose block is still in force is never dropped to make room: otherwise a
 * flood of throwaway keys would lift the block it was meant to keep. When every record is in
 * force, a new key is not tracked and the caller refuses the attempt instead.
 */
export class BackoffTable {
  readonly #records = new Map<string, FailureRecord>();
  readonly #shape: BackoffShape;

  constructor(shape: BackoffShape) {
    this.#shape = shape;
  }

  get size(): number {
    return this.#records.size;
  }

  /** Milliseconds before `key` may be tried again; 0 when it may try now. */
  retryAfterMs(key: string, now: number): number {
    const record = this.#current(key, now);
    return record ? Math.max(0, record.blockedUntil - now) : 0;
  }

  /** Failures of `key` still on record (0 once it has been quiet long enough to be forgotten). */
  failures(key: string, now: number): number {
    return this.#current(key, now)?.failures ?? 0;
  }

  /**
   * Counts a failure of `key`. False when `key` has no record and none could be made because
   * every tracked record is still blocked: the failure is not counted and the caller must refuse.
   */
  recordFailure(key: string, now: number): boolean {
    let record = this.#current(key, now);
    if (!record) {
      if (this.#records.size >= this.#shape.maxTracked && !this.#evictOne(now)) return false;
      record = { failures: 0, blockedUntil: 0, lastFailure: now };
    }
    record.failures += 1;
    record.lastFailure = now;
    const beyond = record.failures - this.#shape.freeAttempts;
    if (beyond > 0) {
      const { baseDelayMs, maxDelayMs } = this.#shape;
      record.blockedUntil = now + Math.min(maxDelayMs, baseDelayMs * 2 ** Math.min(beyond - 1, 30));
    }
    // Re-insert so the map's order is least recently failed first.
    this.#records.delete(key);
    this.#records.set(key, record);
    return true;
  }

  /**
   * Takes back one failure counted in advance for an attempt that succeeded. A block that only
   * that failure started is lifted; older failures stay counted.
   */
  refund(key: string): void {
    const record = this.#records.get(key);
    if (!record) return;
    record.failures = Math.max(0, record.failures - 1);
    if (record.failures <= this.#shape.freeAttempts) record.blockedUntil = 0;
  }

  forget(key: string): void {
    this.#records.delete(key);
  }

  /** Milliseconds until the first tracked block ends (when a full table can take a new key). */
  soonestReleaseMs(now: number): number {
    let soonest = Number.POSITIVE_INFINITY;
    for (const record of this.#records.values()) soonest = Math.min(soonest, record.blockedUntil - now);
    return Number.isFinite(soonest) ? Math.max(1, soonest) : this.#shape.baseDelayMs;
  }

  /** Drops the least recently failed record whose block is over; false when every one is in force. */
  #evictOne(now: number): boolean {
    for (const [key, record] of this.#records) {
      if (now >= record.blockedUntil) {
        this.#records.delete(key);
        return true;
      }
    }
    return false;
  }

  #current(key: string, now: number): FailureRecord | undefined {
    const record = this.#records.get(key);
    if (record && now - record.lastFailure > this.#shape.maxDelayMs && now >= record.blockedUntil) {
      this.#records.delete(key);
      return undefined;
    }
    return record;
  }
}
