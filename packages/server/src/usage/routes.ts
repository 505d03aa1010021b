import type { Kysely } from "kysely";
import { z } from "zod";
import type { ServerDatabase } from "../db/schema.js";
import { ALL_USERS_FORBIDDEN, allUsersParameter, listScope } from "../http/list-scope.js";
import { type AnyRouteSpec, defineRoute } from "../http/route.js";

const TotalsSchema = z.object({
  requests: z.number().int(),
  cache_read_tokens: z.number().int(),
  cache_write_tokens: z.number().int(),
  output_tokens: z.number().int(),
  total_tokens: z.number().int(),
  cost_usd: z.number().nullable().describe("Null when no request had known prices"),
});

const UsageResponseSchema = z.object({
  sessions: z.array(TotalsSchema.extend({ session_id: z.string(), user_id: z.string(), title: z.string() })),
  users: z.array(TotalsSchema.extend({ user_id: z.string() })),
  total: TotalsSchema,
});

const UsageQuerySchema = z.object({
  all: allUsersParameter("Admins only: true sums every user's sessions"),
});

type Totals = z.infer<typeof TotalsSchema>;

const empty = (): Totals => ({
  requests: 0,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  output_tokens: 0,
  total_tokens: 0,
  cost_usd: null,
});

function add(into: Totals, row: Totals): void {
  into.requests += row.requests;
  into.cache_read_tokens += row.cache_read_tokens;
  into.cache_write_tokens += row.cache_write_tokens;
  into.output_tokens += row.output_tokens;
  into.total_tokens += row.total_tokens;
  if (row.cost_usd !== null) into.cost_usd = (into.cost_usd ?? 0) + row.cost_usd;
}

/** `GET /api/usage`: token counts and cost per session and per user, from `usage_records`. */
export function usageRoutes(options: { db: Kysely<ServerDatabase> }): AnyRouteSpec[] {
  const { db } = options;
  const summary = defineRoute({
    method: "get",
    path: "/api/usage",
    summary: "Token usage and cost per session and per user (the caller's; admins: everyone's with all=true)",
    tag: "usage",
    access: "user",
    query: UsageQuerySchema,
    responses: {
      200: { description: "Usage", schema: UsageResponseSchema },
      403: ALL_USERS_FORBIDDEN,
    },
    async handle(c, { query, auth }) {
      const scope = listScope(c, query.all, auth);
      if (scope instanceof Response) return scope;
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
      if (scope.owner !== undefined) select = select.where("sessions.user_id", "=", scope.owner);
      const rows = await select.execute();
      const sessions = rows.map((row) => ({
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
      const byUser = new Map<string, Totals>();
      const total = empty();
      for (const session of sessions) {
        const user = byUser.get(session.user_id) ?? empty();
        add(user, session);
        byUser.set(session.user_id, user);
        add(total, session);
      }
      return c.json(
        { sessions, users: [...byUser].map(([user_id, totals]) => ({ user_id, ...totals })), total },
        200,
      );
    },
  });
  return [summary];
}
