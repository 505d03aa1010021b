import { describe, expect, it } from "vitest";
import type { RunningServer } from "../src/index.js";
import {
  adminSession,
  type ErrorBody,
  memberSession,
  readJson,
  request,
  startTestServer,
} from "./helpers.js";

interface Totals {
  requests: number;
  output_tokens: number;
  total_tokens: number;
  cost_usd: number | null;
}
interface Usage {
  sessions: (Totals & { session_id: string; model_id: string })[];
  users: (Totals & { user_id: string; username: string })[];
  models: (Totals & { provider: string; model_id: string })[];
  total: Totals;
}

async function idOf(server: RunningServer, username: string): Promise<string> {
  const row = await server.db
    .selectFrom("users")
    .select("id")
    .where("username", "=", username)
    .executeTakeFirst();
  if (!row) throw new Error(`no user ${username}`);
  return row.id;
}

/** A session row and its model requests, written as the session layer writes them. */
async function seedSession(
  server: RunningServer,
  input: {
    id: string;
    userId: string;
    model: string;
    requests: { at: string; output: number; cost: number | null }[];
  },
): Promise<void> {
  const at = "2026-01-01T00:00:00.000Z";
  await server.db
    .insertInto("sessions")
    .values({
      id: input.id,
      user_id: input.userId,
      title: input.id,
      agent_id: "default",
      workspace: "/tmp",
      provider: "fake",
      model_id: input.model,
      approval_mode: "allow-all",
      state: "idle",
      created_at: at,
      updated_at: at,
    })
    .execute();
  for (const [index, request] of input.requests.entries()) {
    await server.db
      .insertInto("usage_records")
      .values({
        id: `${input.id}-${index}`,
        session_id: input.id,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        output_tokens: request.output,
        total_tokens: request.output * 10,
        cost_usd: request.cost,
        created_at: request.at,
      })
      .execute();
  }
}

async function usage(server: RunningServer, cookie: string, query: string): Promise<Usage> {
  const response = await request(server.url, `/api/usage${query}`, { cookie });
  expect(response.status, query).toBe(200);
  return readJson<Usage>(response);
}

describe("usage over a range of days, per user and per model", () => {
  it("sums by model and by user, counting only the requests inside the days asked", async () => {
    const server = await startTestServer();
    const admin = await adminSession(server);
    const member = await memberSession(server, admin, "rita");
    const adminId = await idOf(server, "admin");
    const ritaId = await idOf(server, "rita");
    await seedSession(server, {
      id: "s-admin",
      userId: adminId,
      model: "big",
      requests: [
        { at: "2026-03-01T23:59:59.999Z", output: 1, cost: 0.5 },
        { at: "2026-03-02T00:00:00.000Z", output: 2, cost: 0.25 },
        { at: "2026-03-04T00:00:00.000Z", output: 4, cost: null },
      ],
    });
    await seedSession(server, {
      id: "s-rita",
      userId: ritaId,
      model: "small",
      requests: [{ at: "2026-03-03T12:00:00.000Z", output: 8, cost: 0.125 }],
    });

    const everything = await usage(server, admin, "?all=true");
    expect(everything.total).toMatchObject({ requests: 4, output_tokens: 15, cost_usd: 0.875 });
    expect(everything.models).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          provider: "fake",
          model_id: "big",
          requests: 3,
          output_tokens: 7,
          cost_usd: 0.75,
        }),
        expect.objectContaining({ model_id: "small", requests: 1, output_tokens: 8, cost_usd: 0.125 }),
      ]),
    );
    expect(everything.users.map((user) => user.username).sort()).toEqual(["admin", "rita"]);

    const days = await usage(server, admin, "?all=true&from=2026-03-02&to=2026-03-03");
    expect(days.total).toMatchObject({ requests: 2, output_tokens: 10, cost_usd: 0.375 });
    expect(days.models.find((model) => model.model_id === "big")).toMatchObject({
      requests: 1,
      output_tokens: 2,
    });

    const onlyFrom = await usage(server, admin, "?all=true&from=2026-03-04");
    expect(onlyFrom.total).toMatchObject({ requests: 1, output_tokens: 4, cost_usd: null });
    const onlyTo = await usage(server, admin, "?all=true&to=2026-03-01");
    expect(onlyTo.total).toMatchObject({ requests: 1, output_tokens: 1 });

    // A member sees their own only, and may not ask for everyone's.
    const own = await usage(server, member, "");
    expect(own.users).toEqual([expect.objectContaining({ username: "rita", output_tokens: 8 })]);
    expect((await request(server.url, "/api/usage?all=true", { cookie: member })).status).toBe(403);
  });

  it("refuses days that are not dates and a range that ends before it starts", async () => {
    const server = await startTestServer();
    const admin = await adminSession(server);
    for (const query of [
      "?from=2026-02-30",
      "?to=yesterday",
      "?from=2026-3-1",
      "?from=2026-03-05&to=2026-03-04",
    ]) {
      const response = await request(server.url, `/api/usage${query}`, { cookie: admin });
      expect(response.status, query).toBe(400);
      expect((await readJson<ErrorBody>(response)).error).toBe("invalid_request");
    }
  });
});
