import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { Logger } from "pino";
import { LEASE_RENEW_MS, LEASE_TTL_MS } from "../limits.js";
import type { ClaimOutcome, InstanceStore } from "./instance-store.js";

/** An instance as others reach it. */
export interface InstanceAddress {
  id: string;
  address: string;
}

export interface InstanceLeaseOptions {
  store: InstanceStore;
  logger: Logger;
  /** Default LEASE_TTL_MS. */
  ttlMs?: number;
  /** Default LEASE_RENEW_MS. */
  renewMs?: number;
  /** After each renewal: the owner of the runtimes checks it still holds their sessions. */
  onRenewed?: () => Promise<void>;
}

/** Whether process `pid` of this host exists (EPERM: it does, as another user's). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * This server process as an instance on the shared database: its row, the lease it renews, and
 * its claims on the sessions whose runtimes it holds. While the lease runs no other instance opens
 * those sessions; once it lapses (the process died, or lost the database for longer than the
 * lease) any instance may take them over, resuming them from their traces as after a crash.
 */
export class InstanceLease {
  readonly id = randomUUID();
  readonly #host = hostname();
  readonly #ttlMs: number;
  readonly #renewMs: number;
  #timer: NodeJS.Timeout | undefined;
  #address = "";
  #renewing: Promise<void> = Promise.resolve();

  constructor(private readonly options: InstanceLeaseOptions) {
    this.#ttlMs = options.ttlMs ?? LEASE_TTL_MS;
    this.#renewMs = options.renewMs ?? LEASE_RENEW_MS;
  }

  get address(): string {
    return this.#address;
  }

  /**
   * Forgets the instances that are gone, frees their sessions (idle: nothing of theirs runs now),
   * registers this one at `address` and starts renewing.
   */
  async start(address: string): Promise<void> {
    this.#address = address;
    await this.#sweep();
    const now = Date.now();
    await this.options.store.register({
      id: this.id,
      address,
      hostname: this.#host,
      pid: process.pid,
      started_at: new Date(now).toISOString(),
      lease_expires_at: new Date(now + this.#ttlMs).toISOString(),
    });
    this.#timer = setInterval(() => {
      this.#renewing = this.#renew();
    }, this.#renewMs);
    this.#timer.unref();
  }

  /** The address others are told (known once the server listens, when none was given). */
  async setAddress(address: string): Promise<void> {
    this.#address = address;
    await this.options.store.setAddress(this.id, address);
  }

  async claim(sessionId: string): Promise<ClaimOutcome> {
    const first = await this.options.store.claim(sessionId, this.id, new Date().toISOString());
    if (first.ok) return first;
    // An owner on this host whose process is gone is known dead now, not when its lease lapses.
    await this.#sweep();
    return this.options.store.claim(sessionId, this.id, new Date().toISOString());
  }

  release(sessionId: string): Promise<void> {
    return this.options.store.release(sessionId, this.id);
  }

  /** The live other instance holding the session, if one does. */
  async ownerElsewhere(sessionId: string): Promise<InstanceAddress | undefined> {
    const found = await this.#otherOwner(sessionId);
    if (found === undefined) return undefined;
    // An owner on this host whose process is gone is known dead now (see claim).
    await this.#sweep();
    return this.#otherOwner(sessionId);
  }

  async #otherOwner(sessionId: string): Promise<InstanceAddress | undefined> {
    const owner = await this.options.store.ownerOf(sessionId, new Date().toISOString());
    return owner && owner.id !== this.id ? owner : undefined;
  }

  /** Of `sessionIds`, those another instance holds now (this one lost its claim on them). */
  heldElsewhere(sessionIds: readonly string[]): Promise<string[]> {
    return this.options.store.heldElsewhere(sessionIds, this.id);
  }

  /** Stops renewing, frees this instance's sessions and removes its row. */
  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#renewing;
    await this.options.store.remove(this.id);
  }

  async #sweep(): Promise<void> {
    const now = new Date().toISOString();
    await this.options.store.forgetDead(now, this.#host, processAlive);
    await this.options.store.resetOrphans(now);
  }

  async #renew(): Promise<void> {
    try {
      const until = new Date(Date.now() + this.#ttlMs).toISOString();
      if (!(await this.options.store.renew(this.id, until))) {
        // Judged dead (the database was out of reach for longer than the lease): back as a new
        // row; the sessions other instances took meanwhile are theirs (see onRenewed).
        this.options.logger.warn({ instance_id: this.id }, "instance lease had lapsed; registering again");
        await this.options.store.register({
          id: this.id,
          address: this.#address,
          hostname: this.#host,
          pid: process.pid,
          started_at: new Date().toISOString(),
          lease_expires_at: until,
        });
      }
      await this.#sweep();
      await this.options.onRenewed?.();
    } catch (error) {
      this.options.logger.error({ err: error, instance_id: this.id }, "could not renew the instance lease");
    }
  }
}
