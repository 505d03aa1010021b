import type { Kysely } from "kysely";
import { z } from "zod";
import type { ServerDatabase } from "../db/schema.js";
import { ALL_USERS_FORBIDDEN, allUsersParameter, listScope } from "../http/list-scope.js";
import { type AnyRouteSpec, defineRoute } from "../http/route.js";
import { emptyTotals, type Totals, TotalsSchema, usageBySession } from "./totals.js";

const UsageResponseSchema = z.object({
  sessions: z.array(TotalsSchema.extend({ session_id: z.string(), user_id: z.string(), title: z.string() })),
  users: z.array(TotalsSchema.extend({ user_id: z.string() })),
  total: TotalsSchema,
});

const UsageQuerySchema = z.object({
  all: allUsersParameter("Admins only: true sums every user's sessions"),
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
      const sessions = await usageBySession(db, scope.owner);
      const byUser = new Map<string, Totals>();
      const total = emptyTotals();
      for (const session of sessions) {
        const user = byUser.get(session.user_id) ?? emptyTotals();
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
