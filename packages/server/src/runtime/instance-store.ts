import type { ExpressionBuilder, Kysely } from "kysely";
import type { ServerDatabase, ServerInstanceRow, SessionState } from "../db/schema.js";

/** The session's owner is none, or an instance without a live lease at `now` (gone, or never was). */
function ownerGone(eb: ExpressionBuilder<ServerDatabase, "sessions">, now: string) {
  return eb.or([
    eb("owner_instance", "is", null),
    eb(
      "owner_instance",
      "not in",
      eb.selectFrom("server_instances").select("id").where("lease_expires_at", ">", now),
    ),
  ]);
}

/** What a claim on a session found: it is this instance's now, or a live instance holds it. */
export type ClaimOutcome = { ok: true } | { ok: false; ownerAddress: string };

/**
 * The `server_instances` queries and the `owner_instance` column of `sessions` (portable Kysely
 * only). Times are ISO-8601 UTC strings, which compare as text on both databases; instances are
 * expected to keep their clocks in step (NTP), as any lease does.
 */
export class InstanceStore {
  constructor(private readonly db: Kysely<ServerDatabase>) {}

  async register(row: ServerInstanceRow): Promise<void> {
    await this.db.insertInto("server_instances").values(row).execute();
  }

  /** False when the row is gone (another instance judged this one dead and removed it). */
  async renew(id: string, leaseExpiresAt: string): Promise<boolean> {
    const result = await this.db
      .updateTable("server_instances")
      .set({ lease_expires_at: leaseExpiresAt })
      .where("id", "=", id)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async setAddress(id: string, address: string): Promise<void> {
    await this.db.updateTable("server_instances").set({ address }).where("id", "=", id).execute();
  }

  /** The instance stopped: its row goes and its sessions are free to take at once. */
  async remove(id: string): Promise<void> {
    await this.db
      .updateTable("sessions")
      .set({ owner_instance: null })
      .where("owner_instance", "=", id)
      .execute();
    await this.db.deleteFrom("server_instances").where("id", "=", id).execute();
  }

  /** The instances whose lease has lapsed, and those of this host whose process `isAlive` denies, are removed. */
  async forgetDead(now: string, hostname: string, isAlive: (pid: number) => boolean): Promise<void> {
    await this.db.deleteFrom("server_instances").where("lease_expires_at", "<=", now).execute();
    const local = await this.db
      .selectFrom("server_instances")
      .select(["id", "pid"])
      .where("hostname", "=", hostname)
      .execute();
    const gone = local.filter((row) => row.pid !== process.pid && !isAlive(row.pid)).map((row) => row.id);
    if (gone.length > 0) await this.db.deleteFrom("server_instances").where("id", "in", gone).execute();
  }

  /**
   * Sessions whose owner is gone (no live instance row) are nobody's and, if they were left
   * "running", idle: nothing of theirs runs any more.
   */
  async resetOrphans(now: string): Promise<void> {
    await this.db
      .updateTable("sessions")
      .set({ owner_instance: null, state: "idle" })
      .where((eb) =>
        eb.and([
          eb.or([eb("state", "=", "running"), eb("owner_instance", "is not", null)]),
          ownerGone(eb, now),
        ]),
      )
      .execute();
  }

  /**
   * Makes the session this instance's unless a live other instance holds it: one atomic update,
   * so two instances claiming at once cannot both win. A session taken from a gone owner is idle
   * (nothing of the old owner runs). When the claim fails, the holder's address.
   */
  async claim(sessionId: string, instanceId: string, now: string): Promise<ClaimOutcome> {
    const result = await this.db
      .updateTable("sessions")
      .set((eb) => ({
        owner_instance: instanceId,
        state: eb
          .case()
          .when("owner_instance", "=", instanceId)
          .then(eb.ref("state"))
          .else(eb.val<SessionState>("idle"))
          .end(),
      }))
      .where("id", "=", sessionId)
      .where((eb) => eb.or([eb("owner_instance", "=", instanceId), ownerGone(eb, now)]))
      .executeTakeFirst();
    if (result.numUpdatedRows > 0n) return { ok: true };
    const owner = await this.ownerOf(sessionId, now);
    // Deleted (or its owner gone) meanwhile: nothing to claim, and nobody else holds it either.
    return owner === undefined ? { ok: true } : { ok: false, ownerAddress: owner.address };
  }

  /** The live instance holding the session, when one does. */
  async ownerOf(sessionId: string, now?: string): Promise<{ id: string; address: string } | undefined> {
    let query = this.db
      .selectFrom("sessions")
      .innerJoin("server_instances", "server_instances.id", "sessions.owner_instance")
      .select(["server_instances.id as id", "server_instances.address as address"])
      .where("sessions.id", "=", sessionId);
    if (now !== undefined) query = query.where("server_instances.lease_expires_at", ">", now);
    return query.executeTakeFirst();
  }

  /** The session is nobody's again, unless another instance holds it by now. */
  async release(sessionId: string, instanceId: string): Promise<void> {
    await this.db
      .updateTable("sessions")
      .set({ owner_instance: null })
      .where("id", "=", sessionId)
      .where("owner_instance", "=", instanceId)
      .execute();
  }

  /** Of `sessionIds`, those another instance holds now. */
  async heldElsewhere(sessionIds: readonly string[], instanceId: string): Promise<string[]> {
    if (sessionIds.length === 0) return [];
    const rows = await this.db
      .selectFrom("sessions")
      .select("id")
      .where("id", "in", [...sessionIds])
      .where("owner_instance", "is not", null)
      .where("owner_instance", "!=", instanceId)
      .execute();
    return rows.map((row) => row.id);
  }
}
