import { dirname } from "node:path";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { RELAY_APPLICATION_NAME } from "../src/cluster/pg-relay.js";
import type { RunningServer } from "../src/index.js";
import { ADMIN_PASSWORD, login, readJson, request, startTestServer, testDatabaseFor } from "./helpers.js";
import { TEST_DATABASE } from "./postgres/test-database.js";
import { spawnServerProcess } from "./server-process.js";
import {
  eventually,
  execTurn,
  payloadType,
  type SessionServer,
  serverEvents,
  sessionServer,
  waitForEnvelope,
  waitForServerEvent,
} from "./session-fixture.js";
import { SseClient } from "./sse-client.js";

// Several server instances on one database (the data root's SQLite file, or one PostgreSQL
// database in the `postgres` project), sharing the data root's traces: a session's runtime lives
// on one instance at a time, the others answer 409 with its address, and once it stops or dies
// another takes the session over and resumes it from its trace.

const kills: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (kills.length > 0) await kills.pop()?.();
});

/** A call routed to an instance that never answers (a made-up one) gives up this soon in these tests. */
const ROUTING_TIMEOUT_MS = 1_000;

interface ErrorBody {
  error: string;
  message: string;
  owner_address?: string;
}

/** A second instance in this process, on the first one's data root and database. */
async function secondInstance(s: SessionServer) {
  const server = await startTestServer({
    dataRoot: s.dataRoot,
    workspaceRoots: [dirname(s.workspace)],
    relayedCallTimeoutMs: ROUTING_TIMEOUT_MS,
  });
  // The login is a row of the shared database: the same cookie works on every instance.
  return { server, cookie: s.cookie };
}

function stateOf(server: RunningServer, cookie: string, id: string): Promise<string> {
  return request(server.url, `/api/sessions/${id}`, { cookie })
    .then((response) => readJson<{ session: { state: string } }>(response))
    .then((body) => body.session.state);
}

/** An instance on another host, which this one cannot check: only its lease tells whether it lives. */
const REMOTE_INSTANCE = { id: "instance-elsewhere", address: "http://10.1.2.3:7364" };

/** What a live instance on another host leaves in the database: its row, and the session as its own. */
async function ownedByRemoteInstance(
  server: RunningServer,
  sessionId: string,
  leaseExpiresAt: number,
  state?: "running",
): Promise<void> {
  await server.db
    .insertInto("server_instances")
    .values({
      id: REMOTE_INSTANCE.id,
      address: REMOTE_INSTANCE.address,
      hostname: "another-host",
      pid: 1,
      started_at: new Date().toISOString(),
      lease_expires_at: new Date(leaseExpiresAt).toISOString(),
    })
    .execute();
  await server.db
    .updateTable("sessions")
    .set({ owner_instance: REMOTE_INSTANCE.id, ...(state ? { state } : {}) })
    .where("id", "=", sessionId)
    .execute();
}

async function instanceIds(server: RunningServer): Promise<string[]> {
  const rows = await server.db.selectFrom("server_instances").select("id").orderBy("id").execute();
  return rows.map((row) => row.id);
}

describe("several server instances on one database", () => {
  // With PostgreSQL the same calls are routed to the owner instead (see below).
  it.skipIf(TEST_DATABASE === "postgres")(
    "answers 409 with the owner's address on the other instance, which takes the session once the owner stops",
    async () => {
      const s = await sessionServer([
        execTurn("sleep 1.5; echo first-task"),
        { text: "The first task is done." },
        { text: "The second task is done." },
      ]);
      const b = await secondInstance(s);
      expect(await instanceIds(b.server)).toEqual([s.server.instance.id, b.server.instance.id].sort());

      const id = await s.createSession({ approval_mode: "allow-all" });
      expect((await s.call(`/api/sessions/${id}/tasks`, { json: { input: "first" } })).status).toBe(202);

      // B reads the session from the shared database, but cannot act on its runtime.
      expect(await stateOf(b.server, b.cookie, id)).toBe("running");
      for (const [path, json] of [
        [`/api/sessions/${id}/tasks`, { input: "second" }],
        [`/api/sessions/${id}/steer`, { input: "hurry" }],
        [`/api/sessions/${id}/abort`, {}],
      ] as const) {
        const refused = await request(b.server.url, path, { cookie: b.cookie, json });
        expect(refused.status, path).toBe(409);
        expect(await readJson<ErrorBody>(refused)).toMatchObject({
          error: "session_owned_elsewhere",
          owner_address: s.server.url,
          message: expect.stringContaining(s.server.url),
        });
      }
      const approvals = await request(b.server.url, `/api/sessions/${id}/approvals`, { cookie: b.cookie });
      expect(approvals.status).toBe(409);
      const removal = await request(b.server.url, `/api/sessions/${id}`, {
        cookie: b.cookie,
        method: "DELETE",
      });
      expect(removal.status).toBe(409);

      await eventually(
        async () => (await stateOf(s.server, s.cookie, id)) === "idle",
        "the first task's end",
      );
      // Idle but still open on A (until its idle release): still A's.
      expect(
        (await request(b.server.url, `/api/sessions/${id}/tasks`, { cookie: b.cookie, json: { input: "x" } }))
          .status,
      ).toBe(409);

      // A stops cleanly: its row goes and its sessions are free at once.
      await s.server.close();
      expect(await instanceIds(b.server)).toEqual([b.server.instance.id]);
      const taken = await request(b.server.url, `/api/sessions/${id}/tasks`, {
        cookie: b.cookie,
        json: { input: "second" },
      });
      expect(taken.status, await taken.clone().text()).toBe(202);
      await eventually(
        async () => (await stateOf(b.server, b.cookie, id)) === "idle",
        "the second task's end",
      );
      // B resumed the session from its trace: the second request carries the first task's work.
      const last = JSON.stringify(s.llm.requests.at(-1)?.body);
      expect(last).toContain("first-task");
      expect(last).toContain("second");
    },
  );

  it("takes over a session whose owner's lease lapsed, and a restart leaves a live owner's sessions alone", async () => {
    const s = await sessionServer([{ text: "Taken over." }]);
    const id = await s.createSession({ approval_mode: "allow-all" });
    await s.server.close();
    // An instance on another host, which this one cannot check: only its lease tells.
    const b = await secondInstance(s);
    const leaseEnds = Date.now() + 2_500;
    await ownedByRemoteInstance(b.server, id, leaseEnds, "running");

    const refused = await request(b.server.url, `/api/sessions/${id}/tasks`, {
      cookie: b.cookie,
      json: { input: "go" },
    });
    expect(refused.status).toBe(409);
    expect(await readJson<ErrorBody>(refused)).toMatchObject({ owner_address: REMOTE_INSTANCE.address });

    // A third instance starting now must not reset what a live instance holds.
    const c = await secondInstance(s);
    expect(await stateOf(c.server, c.cookie, id)).toBe("running");
    const row = await c.server.db
      .selectFrom("sessions")
      .select("owner_instance")
      .where("id", "=", id)
      .executeTakeFirst();
    expect(row?.owner_instance).toBe(REMOTE_INSTANCE.id);

    // The lease lapses: B takes the session (idle: nothing of the old owner runs) and runs the task.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, leaseEnds - Date.now()) + 50));
    const taken = await request(b.server.url, `/api/sessions/${id}/tasks`, {
      cookie: b.cookie,
      json: { input: "go" },
    });
    expect(taken.status, await taken.clone().text()).toBe(202);
    await eventually(async () => (await stateOf(b.server, b.cookie, id)) === "idle", "the task's end on B");
    expect(
      (await request(c.server.url, `/api/sessions/${id}/tasks`, { cookie: c.cookie, json: { input: "x" } }))
        .status,
      // Routed to B, the owner, on PostgreSQL; the owner's address otherwise.
    ).toBe(TEST_DATABASE === "postgres" ? 202 : 409);
  });

  it("stops its runtime of a session another instance took over while this one was judged dead", async () => {
    const s = await sessionServer([{ text: "Done." }], {
      leaseRenewMs: 100,
      relayedCallTimeoutMs: ROUTING_TIMEOUT_MS,
    });
    const id = await s.createSession({ approval_mode: "allow-all" });
    expect(s.server.sessions.runtime(id)).toBeDefined();
    // What a takeover leaves behind: the session names another live instance.
    await ownedByRemoteInstance(s.server, id, Date.now() + 60_000);
    await eventually(
      () => s.server.sessions.runtime(id) === undefined,
      "the runtime to stop after a renewal",
    );
    const refused = await s.call(`/api/sessions/${id}/tasks`, { json: { input: "go" } });
    expect(refused.status).toBe(409);
  });

  it("tells the other instances the address it was given to advertise, not the one it listens on", async () => {
    const advertised = "http://penguin-a.internal:7364";
    const s = await sessionServer([{ text: "unused" }], { advertiseUrl: advertised });
    const row = await s.server.db
      .selectFrom("server_instances")
      .select("address")
      .where("id", "=", s.server.instance.id)
      .executeTakeFirst();
    expect(row?.address).toBe(advertised);
    const id = await s.createSession();
    const b = await secondInstance(s);
    const refused = await request(b.server.url, `/api/sessions/${id}/processes`, { cookie: b.cookie });
    // On PostgreSQL the call is routed to A, which answers it; otherwise the 409 names A as advertised.
    if (TEST_DATABASE === "postgres") expect(refused.status).toBe(200);
    else expect(await readJson<ErrorBody>(refused)).toMatchObject({ owner_address: advertised });
  });

  it("takes over at once the session of an instance on this host that was SIGKILLed mid-command", async () => {
    const s = await sessionServer([execTurn("sleep 3; echo never-reached"), { text: "unused" }]);
    const database = await testDatabaseFor(s.dataRoot);
    const owner = await spawnServerProcess<{ url: string; instance: string }>("instance-server.mjs", [
      s.dataRoot,
      dirname(s.workspace),
      ...(database ? [database] : []),
    ]);
    kills.push(owner.kill);
    const started = owner.info;

    const cookie = await login(started.url, "admin", ADMIN_PASSWORD);
    const created = await request(started.url, "/api/sessions", {
      cookie,
      json: { workspace: s.workspace, approval_mode: "allow-all" },
    });
    expect(created.status).toBe(201);
    const id = (await readJson<{ session: { id: string } }>(created)).session.id;
    expect(
      (await request(started.url, `/api/sessions/${id}/tasks`, { cookie, json: { input: "wait" } })).status,
    ).toBe(202);
    await s.llm.waitForRequests(1);
    const owned = await request(s.server.url, `/api/sessions/${id}/tasks`, { cookie, json: { input: "x" } });
    // Routed to the owner on PostgreSQL, which has a task running; else the owner's address.
    expect(await readJson<ErrorBody>(owned)).toMatchObject(
      TEST_DATABASE === "postgres"
        ? { error: "task_in_progress" }
        : { error: "session_owned_elsewhere", owner_address: started.url },
    );

    owner.child.kill("SIGKILL");
    expect(await owner.exited).toBe("SIGKILL");
    s.llm.setScript([{ text: "Carried on after the crash." }]);
    // Its process is gone from this host: no wait for its lease.
    const taken = await request(s.server.url, `/api/sessions/${id}/tasks`, {
      cookie,
      json: { input: "carry on" },
    });
    expect(taken.status, await taken.clone().text()).toBe(202);
    await eventually(
      async () => (await stateOf(s.server, cookie, id)) === "idle",
      "the task on the survivor",
    );
    expect(await instanceIds(s.server)).toEqual([s.server.instance.id]);
    expect(JSON.stringify(s.llm.requests.at(-1)?.body)).toContain("carry on");
  });
});

describe.skipIf(TEST_DATABASE !== "postgres")(
  "live events across instances (PostgreSQL LISTEN/NOTIFY)",
  () => {
    it("streams to a client of B the task A runs, a big output whole, and the session list's changes", async () => {
      // A command output far over one notification's 8000 bytes, in characters of every width.
      const big = "printf 'big-start '; for i in $(seq 1 3000); do printf '€🐧x'; done; printf ' big-end'";
      const s = await sessionServer([execTurn(big), { text: "The output was long." }]);
      const b = await secondInstance(s);
      const id = await s.createSession({ approval_mode: "allow-all" });
      const onB = await SseClient.connect(`${b.server.url}/api/sessions/${id}/stream`, { cookie: b.cookie });
      const listOnB = await SseClient.connect(`${b.server.url}/api/events`, { cookie: b.cookie });
      kills.push(async () => {
        onB.close();
        listOnB.close();
      });
      await waitForServerEvent(onB, "task_state");

      expect((await s.call(`/api/sessions/${id}/tasks`, { json: { input: "print it" } })).status).toBe(202);
      const messages = await waitForEnvelope(onB, "task_end");
      const output = messages.find((m) => payloadType(m) === "tool_call_output");
      const text = String((output?.payload as { output?: string } | undefined)?.output);
      expect(text).toContain("big-start");
      expect(text).toContain("€🐧x".repeat(3000));
      expect(text).toContain("big-end");
      expect(messages.at(-1)?.payload).toMatchObject({ type: "task_end", status: "completed" });
      // The events keep the ids A gave them: one id names one event on every instance.
      const ids = onB.events.filter((e) => e.id !== undefined).map((e) => e.id);
      expect(ids.length).toBeGreaterThan(0);
      expect(ids.every((eventId) => eventId?.startsWith(`${s.server.hub.epoch}-`))).toBe(true);
      const states = await waitForServerEvent(onB, "task_state", 3);
      expect(states.map((e) => e.state)).toEqual(["idle", "running", "idle"]);
      await listOnB.until((c) =>
        serverEvents(c.events).some(
          (e) => e.type === "session_state" && e.session_id === id && e.state === "idle",
        ),
      );
    });
  },
);

describe.skipIf(TEST_DATABASE !== "postgres")("two server processes on one PostgreSQL", () => {
  it("runs a task on A, watched and approved on B; A is SIGKILLed mid-command and B takes the session over", async () => {
    const s = await sessionServer([
      execTurn("echo approved-on-b", "call_first"),
      execTurn("sleep 30; echo never-$((1+1))", "call_killed"),
    ]);
    const database = await testDatabaseFor(s.dataRoot);
    if (database === undefined) throw new Error("the postgres project gives each data root a database");
    const owner = await spawnServerProcess<{ url: string; instance: string }>("instance-server.mjs", [
      s.dataRoot,
      dirname(s.workspace),
      database,
    ]);
    kills.push(owner.kill);
    const a = owner.info.url;
    const cookie = await login(a, "admin", ADMIN_PASSWORD);
    const created = await request(a, "/api/sessions", {
      cookie,
      json: { workspace: s.workspace, approval_mode: "always-ask" },
    });
    const id = (await readJson<{ session: { id: string } }>(created)).session.id;
    const onB = await SseClient.connect(`${s.server.url}/api/sessions/${id}/stream`, { cookie });
    kills.push(async () => onB.close());
    await waitForServerEvent(onB, "task_state");
    expect(
      (await request(a, `/api/sessions/${id}/tasks`, { cookie, json: { input: "run both" } })).status,
    ).toBe(202);

    // Both calls are asked for on B's stream and allowed on B; they run on A.
    for (const [count, callId] of [
      [1, "call_first"],
      [2, "call_killed"],
    ] as const) {
      const asked = await waitForServerEvent(onB, "approval_request", count);
      expect(JSON.stringify(asked.at(-1))).toContain(callId);
      const decided = await request(s.server.url, `/api/sessions/${id}/approvals/${callId}`, {
        cookie,
        json: { decision: "allow" },
      });
      expect(decided.status, await decided.clone().text()).toBe(200);
    }
    await onB.until((c) => JSON.stringify(c.events).includes("approved-on-b"));
    expect(s.server.sessions.runtime(id)).toBeUndefined();
    await onB.until((c) =>
      c.events.some((e) => e.data.includes("tool_dispatched") && e.data.includes("call_killed")),
    );

    owner.child.kill("SIGKILL");
    expect(await owner.exited).toBe("SIGKILL");
    s.llm.setScript([{ text: "Taken over by B." }]);
    const taken = await request(s.server.url, `/api/sessions/${id}/tasks`, {
      cookie,
      json: { input: "carry on" },
    });
    expect(taken.status, await taken.clone().text()).toBe(202);
    await waitForEnvelope(onB, "task_end");
    expect(s.server.sessions.runtime(id)).toBeDefined();
    expect(JSON.stringify(onB.events)).toContain("Taken over by B.");
    // The killed command is in the history B resumed from, never run again.
    const history = JSON.stringify(
      await readJson(await request(s.server.url, `/api/sessions/${id}/messages`, { cookie })),
    );
    expect(history).toContain("call_killed");
    expect(history).not.toContain("never-2");
    // B shows the command A was running when it died as a step whose outcome is unknown.
    const recovery = await readJson<{ uncertain: { tool_call_id: string }[] }>(
      await request(s.server.url, `/api/sessions/${id}/recovery`, { cookie }),
    );
    expect(recovery.uncertain.map((step) => step.tool_call_id)).toContain("call_killed");
    expect(await instanceIds(s.server)).toEqual([s.server.instance.id]);
  });
});

describe.skipIf(TEST_DATABASE !== "postgres")("a relay connection that is cut (PostgreSQL)", () => {
  it("tells B's clients to resync once B's relay is connected again, then carries A's events as before", async () => {
    const s = await sessionServer([{ text: "After the cut." }]);
    const b = await secondInstance(s);
    const id = await s.createSession({ approval_mode: "allow-all" });
    const onB = await SseClient.connect(`${b.server.url}/api/sessions/${id}/stream`, { cookie: b.cookie });
    kills.push(async () => onB.close());
    await waitForServerEvent(onB, "task_state");

    // What an operator (or a failover) does to B's notification connection.
    const admin = new pg.Client({ connectionString: await testDatabaseFor(s.dataRoot) });
    await admin.connect();
    kills.push(async () => admin.end());
    const name = `${RELAY_APPLICATION_NAME} ${b.server.instance.id}`;
    const cut = await admin.query(
      "select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1",
      [name],
    );
    expect(cut.rowCount).toBe(1);
    const [resync] = await waitForServerEvent(onB, "resync_required");
    expect(resync).toMatchObject({ reason: "relay_interrupted" });

    expect((await s.call(`/api/sessions/${id}/tasks`, { json: { input: "go on" } })).status).toBe(202);
    const messages = await waitForEnvelope(onB, "task_end");
    expect(JSON.stringify(messages)).toContain("After the cut.");
  });
});

describe.skipIf(TEST_DATABASE !== "postgres")("a client that moves to another instance (PostgreSQL)", () => {
  it("gets from B, with its Last-Event-ID from A, the events it missed and the owner's live state", async () => {
    const s = await sessionServer([execTurn("echo moved-on", "call_move"), { text: "Done after the move." }]);
    const b = await secondInstance(s);
    const id = await s.createSession({ approval_mode: "always-ask" });
    // One client stays on A throughout: what the moving client must end up with.
    const stays = await SseClient.connect(`${s.server.url}/api/sessions/${id}/stream`, { cookie: s.cookie });
    const moves = await SseClient.connect(`${s.server.url}/api/sessions/${id}/stream`, { cookie: s.cookie });
    kills.push(async () => {
      stays.close();
      moves.close();
    });
    await waitForServerEvent(moves, "task_state");
    expect((await s.call(`/api/sessions/${id}/tasks`, { json: { input: "run it" } })).status).toBe(202);
    await waitForServerEvent(moves, "approval_request");
    const lastSeen = moves.lastEventId();
    expect(lastSeen).toBeDefined();
    await moves.close();

    // B seeds a client with the owner's live state: the task runs and waits for this approval.
    const seeded = await readJson<{
      task_state: { state: string };
      approvals: { call_id?: string }[];
      last_event_id?: string;
    }>(await request(b.server.url, `/api/sessions/${id}/messages`, { cookie: b.cookie }));
    expect(seeded.task_state.state).toBe("running");
    expect(JSON.stringify(seeded.approvals)).toContain("call_move");
    expect(seeded.last_event_id).toBe(lastSeen);
    // A new stream on B starts with the owner's live state: the task runs, the call waits.
    const fresh = await SseClient.connect(`${b.server.url}/api/sessions/${id}/stream`, { cookie: b.cookie });
    kills.push(async () => fresh.close());
    const [startState] = await waitForServerEvent(fresh, "task_state");
    expect(startState).toMatchObject({ state: "running" });
    const [waiting] = await waitForServerEvent(fresh, "approval_request");
    expect(JSON.stringify(waiting)).toContain("call_move");
    await fresh.close();

    // Meanwhile the task goes on and ends on A.
    const decided = await s.call(`/api/sessions/${id}/approvals/call_move`, { json: { decision: "allow" } });
    expect(decided.status).toBe(200);
    await waitForEnvelope(stays, "task_end");
    await waitForServerEvent(stays, "task_state", 3);

    const moved = await SseClient.connect(`${b.server.url}/api/sessions/${id}/stream`, {
      cookie: b.cookie,
      lastEventId: lastSeen,
    });
    kills.push(async () => moved.close());
    const missed = stays.events.slice(stays.events.findIndex((e) => e.id === lastSeen) + 1);
    await moved.until((c) => c.events.length >= missed.length);
    expect(moved.events.map((e) => [e.id, e.event, e.data])).toEqual(
      missed.map((e) => [e.id, e.event, e.data]),
    );
    expect(serverEvents(moved.events).some((e) => e.type === "resync_required")).toBe(false);

    // An id no instance issued gets the resync, on B as on A.
    const lost = await SseClient.connect(`${b.server.url}/api/sessions/${id}/stream`, {
      cookie: b.cookie,
      lastEventId: "zzzz-12",
    });
    kills.push(async () => lost.close());
    const [resync] = await waitForServerEvent(lost, "resync_required");
    expect(resync).toMatchObject({ reason: "unknown_epoch" });
  });
});

describe.skipIf(TEST_DATABASE !== "postgres")("calls routed to the owner instance (PostgreSQL)", () => {
  it("carries an approval given on B to the task waiting for it on A, and a task started on B to A", async () => {
    const s = await sessionServer([
      execTurn("echo approved-on-b", "call_ok"),
      { text: "It ran." },
      { text: "Second task done." },
    ]);
    const b = await secondInstance(s);
    const id = await s.createSession({ approval_mode: "always-ask" });
    const onB = await SseClient.connect(`${b.server.url}/api/sessions/${id}/stream`, { cookie: b.cookie });
    kills.push(async () => onB.close());
    await waitForServerEvent(onB, "task_state");

    expect((await s.call(`/api/sessions/${id}/tasks`, { json: { input: "run it" } })).status).toBe(202);
    // B's client sees the request for approval of the task A runs, and answers it on B.
    const [asked] = await waitForServerEvent(onB, "approval_request");
    expect(JSON.stringify(asked)).toContain("call_ok");
    const pending = await request(b.server.url, `/api/sessions/${id}/approvals`, { cookie: b.cookie });
    expect(pending.status).toBe(200);
    expect(JSON.stringify(await readJson(pending))).toContain("call_ok");
    const decided = await request(b.server.url, `/api/sessions/${id}/approvals/call_ok`, {
      cookie: b.cookie,
      json: { decision: "allow" },
    });
    expect(decided.status, await decided.clone().text()).toBe(200);
    const messages = await waitForEnvelope(onB, "task_end");
    const output = messages.find((m) => payloadType(m) === "tool_call_output");
    expect(String((output?.payload as { output?: string } | undefined)?.output)).toContain("approved-on-b");
    expect(s.server.sessions.runtime(id)).toBeDefined();
    expect(b.server.sessions.runtime(id)).toBeUndefined();

    // A task started through B runs on A, the owner.
    await eventually(async () => (await stateOf(s.server, s.cookie, id)) === "idle", "the first task's end");
    const mode = await s.call(`/api/sessions/${id}`, {
      method: "PATCH",
      json: { approval_mode: "allow-all" },
    });
    expect(mode.status).toBe(200);
    const started = await request(b.server.url, `/api/sessions/${id}/tasks`, {
      cookie: b.cookie,
      json: { input: "again" },
    });
    expect(started.status, await started.clone().text()).toBe(202);
    await waitForEnvelope(onB, "task_end", 2);
    expect(b.server.sessions.runtime(id)).toBeUndefined();
    expect(JSON.stringify(s.llm.requests.at(-1)?.body)).toContain("again");

    // A caller without credentials is refused by B before anything is routed.
    const stranger = await request(b.server.url, `/api/sessions/${id}/tasks`, { json: { input: "x" } });
    expect(stranger.status).toBe(401);
  });
});
