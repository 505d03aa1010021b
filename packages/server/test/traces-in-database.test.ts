import { copyFile, mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { projectConfigFile } from "@penguin/state";
import { afterEach, describe, expect, it } from "vitest";
import {
  ADMIN_PASSWORD,
  login,
  readJson,
  request,
  startTestServer,
  tempDataRoot,
  testDatabaseFor,
} from "./helpers.js";
import { TEST_DATABASE } from "./postgres/test-database.js";
import { spawnServerProcess } from "./server-process.js";
import {
  eventually,
  execTurn,
  sessionServer,
  waitForEnvelope,
  waitForServerEvent,
} from "./session-fixture.js";
import { SseClient } from "./sse-client.js";

// `--traces database`: instances that share a PostgreSQL database but no data root. The traces
// one instance writes reach the database before a tool starts; another instance reads, exports,
// takes over and resumes the session from there, and deleting it removes its rows.

const kills: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (kills.length > 0) await kills.pop()?.();
});

interface TraceBody {
  records: { type: string; payload: { type: string; tool_call_id?: string; text?: string } }[];
}

/** A data root of its own for another instance, with the same project config (models). */
async function ownDataRoot(like: string): Promise<string> {
  const root = await tempDataRoot();
  await mkdir(dirname(projectConfigFile(root)), { recursive: true, mode: 0o700 });
  await copyFile(projectConfigFile(like), projectConfigFile(root));
  return root;
}

describe.skipIf(TEST_DATABASE !== "postgres")(
  "traces in PostgreSQL, instances with data roots of their own",
  () => {
    it("B reads and exports what A ran; A is SIGKILLed mid-command and B resumes from the database", async () => {
      const s = await sessionServer(
        [execTurn("echo from-a", "call_first"), execTurn("sleep 30; echo never-$((1+1))", "call_killed")],
        { traces: "database" },
      );
      const database = await testDatabaseFor(s.dataRoot);
      if (database === undefined) throw new Error("the postgres project gives each data root a database");
      const aRoot = await ownDataRoot(s.dataRoot);
      const owner = await spawnServerProcess<{ url: string }>("instance-server.mjs", [
        aRoot,
        dirname(s.workspace),
        database,
        "database",
      ]);
      kills.push(owner.kill);
      const a = owner.info.url;
      const cookie = await login(a, "admin", ADMIN_PASSWORD);
      const created = await request(a, "/api/sessions", { cookie, json: { workspace: s.workspace } });
      const id = (await readJson<{ session: { id: string } }>(created)).session.id;
      const onB = await SseClient.connect(`${s.server.url}/api/sessions/${id}/stream`, { cookie });
      kills.push(async () => onB.close());
      await waitForServerEvent(onB, "task_state");
      expect(
        (await request(a, `/api/sessions/${id}/tasks`, { cookie, json: { input: "run both" } })).status,
      ).toBe(202);
      await onB.until((c) =>
        c.events.some((e) => e.data.includes("tool_dispatched") && e.data.includes("call_killed")),
      );
      // B never ran the session: what it reads comes from the database.
      const seenOnB = await readJson<TraceBody>(
        await request(s.server.url, `/api/sessions/${id}/trace`, { cookie }),
      );
      expect(seenOnB.records[0]?.type).toBe("session_meta");
      expect(JSON.stringify(seenOnB.records)).toContain("from-a");
      // The killed command's dispatch was in the database before the command started.
      expect(
        seenOnB.records.some(
          (r) => r.payload.type === "tool_dispatched" && r.payload.tool_call_id === "call_killed",
        ),
      ).toBe(true);
      const exported = await request(s.server.url, `/api/sessions/${id}/export`, { cookie });
      expect(exported.status).toBe(200);
      expect(await exported.text()).toContain("call_killed");

      owner.child.kill("SIGKILL");
      expect(await owner.exited).toBe("SIGKILL");
      s.llm.setScript([{ text: "Taken over by B." }]);
      const taken = await request(s.server.url, `/api/sessions/${id}/tasks`, {
        cookie,
        json: { input: "carry on" },
      });
      expect(taken.status, await taken.clone().text()).toBe(202);
      await waitForEnvelope(onB, "task_end");
      expect(JSON.stringify(onB.events)).toContain("Taken over by B.");
      // B resumed from A's records: the killed command is an uncertain step, never run again.
      const recovery = await readJson<{ uncertain: { tool_call_id: string }[] }>(
        await request(s.server.url, `/api/sessions/${id}/recovery`, { cookie }),
      );
      expect(recovery.uncertain.map((step) => step.tool_call_id)).toContain("call_killed");
      const afterB = await readJson<TraceBody>(
        await request(s.server.url, `/api/sessions/${id}/trace`, { cookie }),
      );
      expect(JSON.stringify(afterB.records)).not.toContain("never-2");
      expect(afterB.records.slice(0, seenOnB.records.length)).toEqual(seenOnB.records);
      // What B wrote went to the database as well, in order after A's records.
      const rows = await s.server.db
        .selectFrom("trace_records")
        .select(["record", "position"])
        .where("session_id", "=", id)
        .orderBy("file_index")
        .orderBy("position")
        .execute();
      expect(rows.map((row) => JSON.parse(row.record))).toEqual(afterB.records);

      // A third instance with an empty data root shows the same trace; a delete removes the rows.
      const third = await startTestServer({
        dataRoot: await ownDataRoot(s.dataRoot),
        database,
        traces: "database",
        workspaceRoots: [dirname(s.workspace)],
      });
      const onThird = await readJson<TraceBody>(
        await request(third.url, `/api/sessions/${id}/trace`, { cookie }),
      );
      expect(onThird.records).toEqual(afterB.records);
      expect((await request(s.server.url, `/api/sessions/${id}`, { cookie, method: "DELETE" })).status).toBe(
        204,
      );
      const left = await s.server.db
        .selectFrom("trace_records")
        .select("session_id")
        .where("session_id", "=", id)
        .execute();
      expect(left).toEqual([]);
    });

    it("an imported session is stored in the database and readable on an instance that did not import it", async () => {
      const s = await sessionServer([{ text: "an answer" }], { traces: "database" });
      const id = await s.createSession();
      expect((await s.call(`/api/sessions/${id}/tasks`, { json: { input: "hi" } })).status).toBe(202);
      await eventually(async () => {
        const body = await readJson<{ session: { state: string } }>(await s.call(`/api/sessions/${id}`));
        return body.session.state === "idle" ? true : undefined;
      }, "the task's end");
      const text = await (await s.call(`/api/sessions/${id}/export`)).text();
      const imported = await s.call("/api/sessions/import", { json: { trace: text, title: "Imported" } });
      expect(imported.status).toBe(201);
      const copyId = (await readJson<{ session: { id: string } }>(imported)).session.id;
      const database = await testDatabaseFor(s.dataRoot);
      const other = await startTestServer({
        dataRoot: await ownDataRoot(s.dataRoot),
        database,
        traces: "database",
        workspaceRoots: [dirname(s.workspace)],
      });
      const onOther = await readJson<TraceBody>(
        await request(other.url, `/api/sessions/${copyId}/trace`, { cookie: s.cookie }),
      );
      expect(JSON.stringify(onOther.records)).toContain("an answer");
    });
  },
);

describe.skipIf(TEST_DATABASE !== "sqlite")("traces in the database on SQLite", () => {
  it("is refused: one SQLite file serves one machine, whose data root holds the traces", async () => {
    await expect(
      startTestServer({ database: `${await tempDataRoot()}/x.db`, traces: "database" }),
    ).rejects.toThrow(/PostgreSQL/);
  });
});
