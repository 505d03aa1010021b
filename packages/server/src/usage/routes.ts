import type { Kysely } from "kysely";
import { z } from "zod";
import type { ServerDatabase } from "../db/schema.js";
import { jsonError } from "../http/errors.js";
import { ALL_USERS_FORBIDDEN, allUsersParameter, listScope } from "../http/list-scope.js";
import { type AnyRouteSpec, defineRoute, errorResponse } from "../http/route.js";
import {
  addTotals,
  emptyTotals,
  type Totals,
  TotalsSchema,
  UtcDaySchema,
  usageBySession,
  utcDayRange,
} from "./totals.js";

const UsageResponseSchema = z.object({
  sessions: z.array(
    TotalsSchema.extend({
      session_id: z.string(),
      user_id: z.string(),
      title: z.string(),
      provider: z.string(),
      model_id: z.string(),
    }),
  ),
  users: z.array(TotalsSchema.extend({ user_id: z.string(), username: z.string() })),
  models: z.array(TotalsSchema.extend({ provider: z.string(), model_id: z.string() })),
  total: TotalsSchema,
});

const UsageQuerySchema = z.object({
  all: allUsersParameter("Admins only: true sums every user's sessions"),
  from: UtcDaySchema.optional().describe("First day counted (UTC, YYYY-MM-DD); omitted: from the start"),
  to: UtcDaySchema.optional().describe("Last day counted (UTC, YYYY-MM-DD, inclusive); omitted: up to now"),
});

/** Sums rows into groups by a key, keeping each group's identifying fields from its first row. */
function groupTotals<R extends Totals, K extends Record<string, string>>(
  rows: R[],
  keyOf: (row: R) => K,
): (K & Totals)[] {
  const groups = new Map<string, K & Totals>();
  for (const row of rows) {
    const key = keyOf(row);
    const id = JSON.stringify(Object.values(key));
    const group = groups.get(id) ?? { ...key, ...emptyTotals() };
    addTotals(group, row);
    groups.set(id, group);
  }
  return [...groups.values()];
}

/** `GET /api/usage`: token counts and cost per session, user and model, from `usage_records`. */
export function usageRoutes(options: { db: Kysely<ServerDatabase> }): AnyRouteSpec[] {
  const { db } = options;
  const summary = defineRoute({
    method: "get",
    path: "/api/usage",
    summary:
      "Token usage and cost per session, user and model over a range of days (the caller's; admins: everyone's with all=true)",
    tag: "usage",
    access: "user",
    query: UsageQuerySchema,
    responses: {
      200: { description: "Usage", schema: UsageResponseSchema },
      400: errorResponse("A day is not a date, or `from` comes after `to`"),
      403: ALL_USERS_FORBIDDEN,
    },
    async handle(c, { query, auth }) {
      const scope = listScope(c, query.all, auth);
      if (scope instanceof Response) return scope;
      const range = utcDayRange(query.from, query.to);
      if (range === undefined) {
        return jsonError(c, 400, "invalid_request", "`from` comes after `to`");
      }
      const rows = await usageBySession(db, { owner: scope.owner, ...range });
      const sessions = rows.map(({ username: _username, ...session }) => session);
      const total = emptyTotals();
      for (const row of rows) addTotals(total, row);
      return c.json(
        {
          sessions,
          users: groupTotals(rows, (row) => ({ user_id: row.user_id, username: row.username })),
          models: groupTotals(rows, (row) => ({ provider: row.provider, model_id: row.model_id })),
          total,
        },
        200,
      );
    },
  });
  return [summary];
}
