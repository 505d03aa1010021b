import {
  LOGIN_BASE_DELAY_MS,
  LOGIN_FREE_ATTEMPTS,
  LOGIN_MAX_DELAY_MS,
  LOGIN_MAX_TRACKED_USERNAMES,
} from "../limits.js";

export interface LoginThrottleOptions {
  freeAttempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  maxTrackedUsernames?: number;
}

interface FailureRecord {
  failures: number;
  /** Epoch milliseconds before which no attempt for this username is checked. */
  blockedUntil: number;
  lastFailure: number;
}

/**
 * "Rate-limit login failures per username (simple in-memory backoff)": the first few failures
 * are free, then each failure blocks further attempts for a doubling delay, capped. A blocked
 * attempt is refused before the password is even checked, so guessing cannot go faster than the
 * delay. A success clears the record. In memory only: a restart forgets, which is acceptable for
 * a backoff (the attacker still pays the delays again).
 */
export class LoginThrottle {
  readonly #records = new Map<string, FailureRecord>();
  readonly #freeAttempts: number;
  readonly #baseDelayMs: number;
  readonly #maxDelayMs: number;
  readonly #maxTracked: number;

  constructor(options: LoginThrottleOptions = {}) {
    this.#freeAttempts = options.freeAttempts ?? LOGIN_FREE_ATTEMPTS;
    this.#baseDelayMs = options.baseDelayMs ?? LOGIN_BASE_DELAY_MS;
    this.#maxDelayMs = options.maxDelayMs ?? LOGIN_MAX_DELAY_MS;
    this.#maxTracked = options.maxTrackedUsernames ?? LOGIN_MAX_TRACKED_USERNAMES;
  }

  /** Milliseconds the caller must wait before trying `username` again; 0 when it may try now. */
  retryAfterMs(username: string, now: number): number {
    const record = this.#current(username, now);
    return record ? Math.max(0, record.blockedUntil - now) : 0;
  }

  recordFailure(username: string, now: number): void {
    const record = this.#current(username, now) ?? { failures: 0, blockedUntil: 0, lastFailure: now };
    record.failures += 1;
    record.lastFailure = now;
    const beyond = record.failures - this.#freeAttempts;
    if (beyond > 0) {
      const delay = Math.min(this.#maxDelayMs, this.#baseDelayMs * 2 ** Math.min(beyond - 1, 30));
      record.blockedUntil = now + delay;
    }
    // Re-insert so the map's order is least recently failed first.
    this.#records.delete(username);
    this.#records.set(username, record);
    while (this.#records.size > this.#maxTracked) {
      const oldest = this.#records.keys().next().value;
      if (oldest === undefined) break;
      this.#records.delete(oldest);
    }
  }

  recordSuccess(username: string): void {
    this.#records.delete(username);
  }

  #current(username: string, now: number): FailureRecord | undefined {
    const record = this.#records.get(username);
    if (record && now - record.lastFailure > this.#maxDelayMs && now >= record.blockedUntil) {
      this.#records.delete(username);
      return undefined;
    }
    return record;
  }
}
