import type { Kysely } from "kysely";
import { z } from "zod";
import type { ServerDatabase } from "../db/schema.js";

export const TotalsSchema = z.object({
  requests: z.number().int(),
  cache_read_tokens: z.number().int(),
  cache_write_tokens: z.number().int(),
  output_tokens: z.number().int(),
  total_tokens: z.number().int(),
  cost_usd: z.number().nullable().describe("Null when no request had known prices"),
});

export type Totals = z.infer<typeof TotalsSchema>;

export interface SessionTotals extends Totals {
  session_id: string;
  user_id: string;
  title: string;
}

export const emptyTotals = (): Totals => ({
  requests: 0,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  output_tokens: 0,
  total_tokens: 0,
  cost_usd: null,
});

/**
 * Token counts and cost of every session with usage (of `owner` only, when given), summed from
 * `usage_records`: the one place usage is added up, for `GET /api/usage` and the session list.
 */
export async function usageBySession(
  db: Kysely<ServerDatabase>,
  owner: string | undefined,
): Promise<SessionTotals[]> {
  let select = db
    .selectFrom("usage_records")
    .innerJoin("sessions", "sessions.id", "usage_records.session_id")
    .select((eb) => [
      "sessions.id as session_id",
      "sessions.user_id as user_id",
      "sessions.title as title",
      eb.fn.countAll<number>().as("requests"),
      eb.fn.sum<number>("usage_records.cache_read_tokens").as("cache_read_tokens"),
      eb.fn.sum<number>("usage_records.cache_write_tokens").as("cache_write_tokens"),
      eb.fn.sum<number>("usage_records.output_tokens").as("output_tokens"),
      eb.fn.sum<number>("usage_records.total_tokens").as("total_tokens"),
      eb.fn.sum<number | null>("usage_records.cost_usd").as("cost_usd"),
    ])
    .groupBy(["sessions.id", "sessions.user_id", "sessions.title"])
    .orderBy("sessions.id");
  if (owner !== undefined) select = select.where("sessions.user_id", "=", owner);
  const rows = await select.execute();
  return rows.map((row) => ({
    session_id: row.session_id,
    user_id: row.user_id,
    title: row.title,
    requests: Number(row.requests),
    cache_read_tokens: Number(row.cache_read_tokens),
    cache_write_tokens: Number(row.cache_write_tokens),
    output_tokens: Number(row.output_tokens),
    total_tokens: Number(row.total_tokens),
    cost_usd: row.cost_usd === null ? null : Number(row.cost_usd),
  }));
}
