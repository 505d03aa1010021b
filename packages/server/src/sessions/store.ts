import { randomUUID } from "node:crypto";
import type { ApprovalMode } from "@penguin/state";
import type { Kysely } from "kysely";
import { SESSION_COLUMNS, type ServerDatabase, type SessionRow, type SessionState } from "../db/schema.js";
import { type SessionTotals, usageBySession } from "../usage/totals.js";

/** The `sessions` and `usage_records` queries of the session layer (portable Kysely only). */
export class SessionStore {
  constructor(
    private readonly db: Kysely<ServerDatabase>,
    private readonly now: () => Date,
  ) {}

  async insert(row: Omit<SessionRow, "created_at" | "updated_at" | "state">): Promise<SessionRow> {
    const at = this.now().toISOString();
    const full: SessionRow = { ...row, state: "idle", created_at: at, updated_at: at };
    await this.db.insertInto("sessions").values(full).execute();
    return full;
  }

  find(id: string): Promise<SessionRow | undefined> {
    return this.db.selectFrom("sessions").select(SESSION_COLUMNS).where("id", "=", id).executeTakeFirst();
  }

  /** Newest first; every user's when `userId` is undefined. */
  list(userId: string | undefined): Promise<SessionRow[]> {
    let query = this.db.selectFrom("sessions").select(SESSION_COLUMNS);
    if (userId !== undefined) query = query.where("user_id", "=", userId);
    return query.orderBy("updated_at", "desc").orderBy("id", "desc").execute();
  }

  /** Usage totals of the sessions of `userId` (every user's when undefined), as `GET /api/usage` sums them. */
  usage(userId: string | undefined): Promise<SessionTotals[]> {
    return usageBySession(this.db, { owner: userId });
  }

  /** The session's approval mode now; undefined once the session is deleted. */
  async approvalMode(id: string): Promise<ApprovalMode | undefined> {
    const row = await this.db
      .selectFrom("sessions")
      .select("approval_mode")
      .where("id", "=", id)
      .executeTakeFirst();
    return row?.approval_mode;
  }

  async update(
    id: string,
    changes: Partial<Pick<SessionRow, "approval_mode" | "title" | "state">>,
  ): Promise<SessionRow | undefined> {
    await this.db
      .updateTable("sessions")
      .set({ ...changes, updated_at: this.now().toISOString() })
      .where("id", "=", id)
      .execute();
    return this.find(id);
  }

  async setState(id: string, state: SessionState): Promise<void> {
    await this.update(id, { state });
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom("usage_records").where("session_id", "=", id).execute();
    await this.db.deleteFrom("sessions").where("id", "=", id).execute();
  }

  async recordUsage(
    sessionId: string,
    counts: { cache_read: number; cache_write: number; output: number; total: number },
    costUsd: number | undefined,
  ): Promise<void> {
    await this.db
      .insertInto("usage_records")
      .values({
        id: randomUUID(),
        session_id: sessionId,
        cache_read_tokens: counts.cache_read,
        cache_write_tokens: counts.cache_write,
        output_tokens: counts.output,
        total_tokens: counts.total,
        cost_usd: costUsd ?? null,
        created_at: this.now().toISOString(),
      })
      .execute();
  }
}
