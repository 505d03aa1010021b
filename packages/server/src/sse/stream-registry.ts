import { MAX_STREAMS_PER_USER, STREAM_CREDENTIAL_RECHECK_MS } from "../limits.js";

/** What a live stream was opened with: the user, and the browser session or API token that proved it. */
export interface StreamCredential {
  userId: string;
  /** The browser session (auth_sessions row id), for a stream opened with the cookie. */
  authSessionId?: string;
  /** When that browser session expires (ISO 8601). */
  expiresAt?: string;
  /** The API token's id, for a stream opened with a bearer token. */
  apiTokenId?: string;
}

/** One open stream's hold on its credential. */
export interface StreamLease {
  readonly credential: StreamCredential;
  /** Aborted once the credential is revoked, found invalid by a re-check, or the server stops. */
  readonly signal: AbortSignal;
  /** Whether the stream may still deliver an event now (cheap: no database access). */
  valid(): boolean;
  /** The stream has ended; its slot is free again. Idempotent. */
  release(): void;
}

export interface StreamRegistryOptions {
  /** Live streams one user may have open at once; default {@link MAX_STREAMS_PER_USER}. */
  maxPerUser?: number;
  /** How often every open stream's credential is checked again; default {@link STREAM_CREDENTIAL_RECHECK_MS}. */
  recheckMs?: number;
  /** Whether a credential still proves its user (its session or token still exists and is unexpired). */
  verify(credential: StreamCredential): Promise<boolean>;
  now?: () => Date;
}

class Lease implements StreamLease {
  readonly #controller = new AbortController();
  #released = false;

  constructor(
    readonly credential: StreamCredential,
    private readonly now: () => Date,
    private readonly onRelease: (lease: Lease) => void,
  ) {}

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  valid(): boolean {
    if (this.#controller.signal.aborted) return false;
    const { expiresAt } = this.credential;
    if (expiresAt !== undefined && expiresAt <= this.now().toISOString()) {
      this.revoke();
      return false;
    }
    return true;
  }

  revoke(): void {
    this.#controller.abort();
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    this.onRelease(this);
  }
}

/**
 * The live streams (SSE) open on this server, by the credential that opened them. A stream is
 * authenticated once, when it opens, and may then stay open for days: so a revoked credential
 * (logout, a revoked token, a password change) must end the streams it opened, or whoever held
 * it keeps reading. The auth routes call the `revoke…` methods as they revoke; a periodic
 * re-check of every open stream's credential catches the rest (expiry, rows removed by other
 * means); and each stream asks `valid()` before every event.
 *
 * It also caps the streams of one user, so one account cannot hold an unbounded number of
 * connections (each holds a socket and a heartbeat timer for as long as it lives).
 */
export class StreamRegistry {
  readonly #byUser = new Map<string, Set<Lease>>();
  readonly #maxPerUser: number;
  readonly #recheckMs: number;
  readonly #verify: StreamRegistryOptions["verify"];
  readonly #now: () => Date;
  #timer: NodeJS.Timeout | undefined;
  #rechecking = false;

  constructor(options: StreamRegistryOptions) {
    this.#maxPerUser = Math.max(1, options.maxPerUser ?? MAX_STREAMS_PER_USER);
    this.#recheckMs = Math.max(1, options.recheckMs ?? STREAM_CREDENTIAL_RECHECK_MS);
    this.#verify = options.verify;
    this.#now = options.now ?? (() => new Date());
  }

  get maxPerUser(): number {
    return this.#maxPerUser;
  }

  /** Streams open for `userId`. */
  count(userId: string): number {
    return this.#byUser.get(userId)?.size ?? 0;
  }

  /** A lease for a new stream, or undefined when the user already has the most streams allowed. */
  open(credential: StreamCredential): StreamLease | undefined {
    let leases = this.#byUser.get(credential.userId);
    if ((leases?.size ?? 0) >= this.#maxPerUser) return undefined;
    if (!leases) {
      leases = new Set();
      this.#byUser.set(credential.userId, leases);
    }
    const lease = new Lease(credential, this.#now, (done) => this.#forget(done));
    leases.add(lease);
    this.#startRechecks();
    return lease;
  }

  /** Ends the streams opened with this browser session (logout). */
  revokeAuthSession(authSessionId: string): void {
    this.#revokeWhere((credential) => credential.authSessionId === authSessionId);
  }

  /** Ends the streams opened with this API token (the token was revoked). */
  revokeApiToken(apiTokenId: string): void {
    this.#revokeWhere((credential) => credential.apiTokenId === apiTokenId);
  }

  /**
   * Ends every stream of a user except those of `keepAuthSessionId` (a password change ends the
   * user's other sessions and every token, and keeps the session that made the change).
   */
  revokeUser(userId: string, keepAuthSessionId?: string): void {
    this.#revokeWhere(
      (credential) =>
        credential.userId === userId &&
        (keepAuthSessionId === undefined || credential.authSessionId !== keepAuthSessionId),
    );
  }

  /** Checks every open stream's credential now; the periodic re-check calls this. */
  async recheck(): Promise<void> {
    if (this.#rechecking) return;
    this.#rechecking = true;
    try {
      // One check per distinct credential, however many streams share it.
      const verdicts = new Map<string, Promise<boolean>>();
      const checks: Promise<void>[] = [];
      for (const lease of this.#leases()) {
        const key = JSON.stringify([
          lease.credential.userId,
          lease.credential.authSessionId,
          lease.credential.apiTokenId,
        ]);
        let verdict = verdicts.get(key);
        if (!verdict) {
          // A check that cannot be made counts as a failed one: the client reconnects and proves itself.
          verdict = this.#verify(lease.credential).catch(() => false);
          verdicts.set(key, verdict);
        }
        checks.push(
          verdict.then((ok) => {
            if (!ok) lease.revoke();
          }),
        );
      }
      await Promise.all(checks);
    } finally {
      this.#rechecking = false;
    }
  }

  /** Ends every stream and stops the re-checks (the server is stopping). */
  close(): void {
    this.#revokeWhere(() => true);
    this.#stopRechecks();
  }

  *#leases(): Iterable<Lease> {
    for (const leases of this.#byUser.values()) yield* leases;
  }

  #revokeWhere(matches: (credential: StreamCredential) => boolean): void {
    for (const lease of [...this.#leases()]) if (matches(lease.credential)) lease.revoke();
  }

  #forget(lease: Lease): void {
    const leases = this.#byUser.get(lease.credential.userId);
    leases?.delete(lease);
    if (leases?.size === 0) this.#byUser.delete(lease.credential.userId);
    if (this.#byUser.size === 0) this.#stopRechecks();
  }

  #startRechecks(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => void this.recheck(), this.#recheckMs);
    // A server with open streams is kept alive by its sockets, not by this timer.
    this.#timer.unref();
  }

  #stopRechecks(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
