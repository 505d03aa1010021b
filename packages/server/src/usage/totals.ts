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

/** One session's usage, with what the usage page groups it by (its user and its model). */
export interface SessionTotals extends Totals {
  session_id: string;
  user_id: string;
  username: string;
  title: string;
  provider: string;
  model_id: string;
}

export const emptyTotals = (): Totals => ({
  requests: 0,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  output_tokens: 0,
  total_tokens: 0,
  cost_usd: null,
});

export function addTotals(into: Totals, row: Totals): void {
  into.requests += row.requests;
  into.cache_read_tokens += row.cache_read_tokens;
  into.cache_write_tokens += row.cache_write_tokens;
  into.output_tokens += row.output_tokens;
  into.total_tokens += row.total_tokens;
  if (row.cost_usd !== null) into.cost_usd = (into.cost_usd ?? 0) + row.cost_usd;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** A calendar day in UTC, `YYYY-MM-DD`, that exists (no February 30th). */
export const UtcDaySchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "use YYYY-MM-DD")
  .refine((day) => {
    const at = Date.parse(`${day}T00:00:00.000Z`);
    // Date.parse rolls February 30th over to March 1st: the day must read back unchanged.
    return !Number.isNaN(at) && new Date(at).toISOString().startsWith(day);
  }, "not a calendar day");

/**
 * The instants bounding the days `from` to `to` (both inclusive) as ISO strings that compare
 * with the stored timestamps as text: `start` inclusive, `end` exclusive (the day after `to`).
 * Undefined when `from` comes after `to`.
 */
export function utcDayRange(
  from: string | undefined,
  to: string | undefined,
): { start?: string; end?: string } | undefined {
  if (from !== undefined && to !== undefined && from > to) return undefined;
  const start = from === undefined ? undefined : `${from}T00:00:00.000Z`;
  const end =
    to === undefined ? undefined : new Date(Date.parse(`${to}T00:00:00.000Z`) + DAY_MS).toISOString();
  return { ...(start ? { start } : {}), ...(end ? { end } : {}) };
}

/**
 * Token counts and cost of every session with usage, summed from `usage_records`: the one place
 * usage is added up, for `GET /api/usage` and the session list. `owner` keeps one user's sessions;
 * `start` (inclusive) and `end` (exclusive) bound the records' times, as `utcDayRange` gives them.
 */
export async function usageBySession(
  db: Kysely<ServerDatabase>,
  filter: { owner?: string; start?: string; end?: string } = {},
): Promise<SessionTotals[]> {
  let select = db
    .selectFrom("usage_records")
    .innerJoin("sessions", "sessions.id", "usage_records.session_id")
    .innerJoin("users", "users.id", "sessions.user_id")
    .select((eb) => [
      "sessions.id as session_id",
      "sessions.user_id as user_id",
      "users.username as username",
      "sessions.title as title",
      "sessions.provider as provider",
      "sessions.model_id as model_id",
      eb.fn.countAll<number>().as("requests"),
      eb.fn.sum<number>("usage_records.cache_read_tokens").as("cache_read_tokens"),
      eb.fn.sum<number>("usage_records.cache_write_tokens").as("cache_write_tokens"),
      eb.fn.sum<number>("usage_records.output_tokens").as("output_tokens"),
      eb.fn.sum<number>("usage_records.total_tokens").as("total_tokens"),
      eb.fn.sum<number | null>("usage_records.cost_usd").as("cost_usd"),
    ])
    .groupBy([
      "sessions.id",
      "sessions.user_id",
      "users.username",
      "sessions.title",
      "sessions.provider",
      "sessions.model_id",
    ])
    .orderBy("sessions.id");
  if (filter.owner !== undefined) select = select.where("sessions.user_id", "=", filter.owner);
  if (filter.start !== undefined) select = select.where("usage_records.created_at", ">=", filter.start);
  if (filter.end !== undefined) select = select.where("usage_records.created_at", "<", filter.end);
  const rows = await select.execute();
  return rows.map((row) => ({
    ...row,
    requests: Number(row.requests),
    cache_read_tokens: Number(row.cache_read_tokens),
    cache_write_tokens: Number(row.cache_write_tokens),
    output_tokens: Number(row.output_tokens),
    total_tokens: Number(row.total_tokens),
    cost_usd: row.cost_usd === null ? null : Number(row.cost_usd),
  }));
}
