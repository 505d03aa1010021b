import {
  LOGIN_ADDRESS_FREE_ATTEMPTS,
  LOGIN_BASE_DELAY_MS,
  LOGIN_FREE_ATTEMPTS,
  LOGIN_MAX_DELAY_MS,
  LOGIN_MAX_TRACKED_ADDRESSES,
  LOGIN_MAX_TRACKED_USERNAMES,
} from "../limits.js";
import { BackoffTable } from "./backoff-table.js";

export interface LoginThrottleOptions {
  /** Failures in a row per username before the backoff starts. */
  freeAttempts?: number;
  /** Failures per client address before its backoff starts. */
  addressFreeAttempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  maxTrackedUsernames?: number;
  maxTrackedAddresses?: number;
}

/** One password check: who it claims to be and where it comes from (see `clientAddressKey`). */
export interface LoginAttempt {
  username: string;
  address: string;
}

/** Why an attempt is refused before its password is checked. */
export type ThrottleRefusal = "username" | "address" | "full";

export type AdmitResult =
  | { admitted: true }
  | { admitted: false; reason: ThrottleRefusal; retryAfterMs: number };

/**
 * "Rate-limit login failures per username (simple in-memory backoff)", and per client address:
 * the first few failures are free, then each failure blocks further attempts for a doubling
 * delay, capped. A blocked attempt is refused before the password is even checked, so guessing
 * cannot go faster than the delay. In memory only: a restart forgets, which is acceptable for a
 * backoff (the attacker still pays the delays again).
 */
export class LoginThrottle {
  readonly #usernames: BackoffTable;
  readonly #addresses: BackoffTable;

  constructor(options: LoginThrottleOptions = {}) {
    const baseDelayMs = options.baseDelayMs ?? LOGIN_BASE_DELAY_MS;
    const maxDelayMs = options.maxDelayMs ?? LOGIN_MAX_DELAY_MS;
    this.#usernames = new BackoffTable({
      freeAttempts: options.freeAttempts ?? LOGIN_FREE_ATTEMPTS,
      baseDelayMs,
      maxDelayMs,
      maxTracked: options.maxTrackedUsernames ?? LOGIN_MAX_TRACKED_USERNAMES,
    });
    this.#addresses = new BackoffTable({
      freeAttempts: options.addressFreeAttempts ?? LOGIN_ADDRESS_FREE_ATTEMPTS,
      baseDelayMs,
      maxDelayMs,
      maxTracked: options.maxTrackedAddresses ?? LOGIN_MAX_TRACKED_ADDRESSES,
    });
  }

  /**
   * Decides whether the password of `attempt` may be checked now. An admitted attempt is counted
   * as a failure at once, so a burst of parallel guesses cannot all slip past the check while
   * their hashes are computed; `succeeded` takes it back.
   *
   * When the username table is full of blocks still in force, a new username is not tracked:
   * the attempt is refused and still counts against its address, so a flood of throwaway
   * usernames ends up blocked by address instead of lifting anyone's block.
   *
   * A username's block holds only for addresses with a failure on record. Otherwise one failed
   * guess per block period, from anywhere, would lock the real user (the admin included) out
   * for good. An address with a clean record gets its password checked; a wrong one is counted
   * against that address, so from then on the block applies to it as well.
   */
  admit(attempt: LoginAttempt, now: number): AdmitResult {
    const byUsername = this.#usernames.retryAfterMs(attempt.username, now);
    if (byUsername > 0 && this.#addresses.failures(attempt.address, now) > 0) {
      return { admitted: false, reason: "username", retryAfterMs: byUsername };
    }
    const byAddress = this.#addresses.retryAfterMs(attempt.address, now);
    if (byAddress > 0) return { admitted: false, reason: "address", retryAfterMs: byAddress };
    if (!this.#addresses.recordFailure(attempt.address, now)) {
      return { admitted: false, reason: "full", retryAfterMs: this.#addresses.soonestReleaseMs(now) };
    }
    if (!this.#usernames.recordFailure(attempt.username, now)) {
      return { admitted: false, reason: "full", retryAfterMs: this.#usernames.soonestReleaseMs(now) };
    }
    return { admitted: true };
  }

  /**
   * The password was right: the username's record is cleared and the address gets back the
   * failure counted in advance. The address's earlier failures stay: one valid account must not
   * be a way to reset the counter of an address that guesses at others.
   */
  succeeded(attempt: LoginAttempt): void {
    this.#usernames.forget(attempt.username);
    this.#addresses.refund(attempt.address);
  }

  /** Milliseconds before `username` may be tried again from anywhere; 0 when it may try now. */
  usernameRetryAfterMs(username: string, now: number): number {
    return this.#usernames.retryAfterMs(username, now);
  }

  /** Milliseconds before anything may be tried from `address`; 0 when it may try now. */
  addressRetryAfterMs(address: string, now: number): number {
    return this.#addresses.retryAfterMs(address, now);
  }
}
