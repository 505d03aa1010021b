import { MAX_CONCURRENT_PASSWORD_HASHES, MAX_QUEUED_PASSWORD_HASHES } from "../limits.js";

export interface PasswordHashGateOptions {
  /** Hashes computed at once. Default 2. */
  maxConcurrent?: number;
  /** Hashes waiting for a slot; beyond this `enter` refuses. Default 16. */
  maxQueued?: number;
}

/** A place in the gate: wait for `ready`, then hash, then `release` (also when giving up early). */
export interface HashSlot {
  ready: Promise<void>;
  release(): void;
}

/**
 * A small semaphore in front of every password hash, so a flood of logins (each one scrypt of
 * 32 MiB, unknown usernames included) cannot hold every libuv thread and stall the server's file
 * access. The queue behind it is short and bounded: when it is full, `enter` refuses at once and
 * the caller answers 429.
 */
export class PasswordHashGate {
  readonly #maxConcurrent: number;
  readonly #maxQueued: number;
  #active = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(options: PasswordHashGateOptions = {}) {
    this.#maxConcurrent = Math.max(1, options.maxConcurrent ?? MAX_CONCURRENT_PASSWORD_HASHES);
    this.#maxQueued = Math.max(0, options.maxQueued ?? MAX_QUEUED_PASSWORD_HASHES);
  }

  /** Hashes running now. */
  get active(): number {
    return this.#active;
  }

  /** Hashes waiting for a slot. */
  get queued(): number {
    return this.#waiting.length;
  }

  /** A slot (maybe after a wait), or undefined when every slot is taken and the queue is full. */
  enter(): HashSlot | undefined {
    if (this.#active < this.#maxConcurrent) {
      this.#active += 1;
      return this.#slot(Promise.resolve(), () => false);
    }
    if (this.#waiting.length >= this.#maxQueued) return undefined;
    let wake!: () => void;
    const ready = new Promise<void>((resolve) => {
      wake = resolve;
    });
    this.#waiting.push(wake);
    // Released before its turn came: leave the queue without ever taking a slot.
    const leaveQueue = () => {
      const index = this.#waiting.indexOf(wake);
      if (index >= 0) {
        this.#waiting.splice(index, 1);
        return true;
      }
      return false;
    };
    return this.#slot(ready, leaveQueue);
  }

  /** Runs `work` in a slot; undefined (and `work` not started) when the gate is full. */
  tryRun<T>(work: () => Promise<T>): Promise<T> | undefined {
    const slot = this.enter();
    if (!slot) return undefined;
    return (async () => {
      try {
        await slot.ready;
        return await work();
      } finally {
        slot.release();
      }
    })();
  }

  #slot(ready: Promise<void>, leaveQueue: () => boolean): HashSlot {
    let released = false;
    return {
      ready,
      release: () => {
        if (released) return;
        released = true;
        if (leaveQueue()) return;
        // The slot passes straight to the next in line, so `active` never dips below the cap
        // while someone waits.
        const next = this.#waiting.shift();
        if (next) next();
        else this.#active -= 1;
      },
    };
  }
}
