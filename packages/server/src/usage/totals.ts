import { z } from "zod";

export const TotalsSchema = z.object({
  requests: z.number().int(),
  cache_read_tokens: z.number().int(),
  cache_write_tokens: z.number().int(),
  output_tokens: z.number().int(),
  total_tokens: z.number().int(),
  cost_usd: z.number().nullable().describe("Null when no request had known prices"),
});

export type Totals = z.infer<typeof TotalsSchema>;

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
