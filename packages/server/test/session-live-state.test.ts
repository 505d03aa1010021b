import pg from "pg";
import { describe, expect, it } from "vitest";
import { readJson, testDatabaseFor } from "./helpers.js";
import { TEST_DATABASE } from "./postgres/test-database.js";
import { eventually, execTurn, sessionServer, waitForServerEvent } from "./session-fixture.js";

interface SessionBody {
  session: { id: string; state: string };
}

// The stored state of a session lags its runtime by a database write. A client that saw the
// stream say "idle" reads the session next and must read "idle", however slow the write. On
// PostgreSQL another connection holds the session's row, so the write is held back for certain.
describe.skipIf(TEST_DATABASE !== "postgres")("a session's state while its stored state lags", () => {
  it("reads idle from the session and the list once the stream said idle, before the write lands", async () => {
    const s = await sessionServer([execTurn("sleep 1; echo done"), { text: "Finished." }]);
    const id = await s.createSession({ approval_mode: "allow-all" });
    const stream = await s.stream(id);
    await waitForServerEvent(stream, "task_state");
    expect((await s.call(`/api/sessions/${id}/tasks`, { json: { input: "go" } })).status).toBe(202);

    const url = await testDatabaseFor(s.dataRoot);
    const holder = new pg.Client({ connectionString: url });
    const reader = new pg.Client({ connectionString: url });
    await Promise.all([holder.connect(), reader.connect()]);
    try {
      await holder.query("begin");
      await holder.query("select id from sessions where id = $1 for update", [id]);

      await waitForServerEvent(stream, "task_state", 3);
      const stored = await reader.query<{ state: string }>("select state from sessions where id = $1", [id]);
      expect(stored.rows[0]?.state).toBe("running");
      const one = await readJson<SessionBody>(await s.call(`/api/sessions/${id}`));
      expect(one.session.state).toBe("idle");
      const list = await readJson<{ sessions: SessionBody["session"][] }>(await s.call("/api/sessions"));
      expect(list.sessions.find((row) => row.id === id)?.state).toBe("idle");

      await holder.query("commit");
      await eventually(async () => {
        const row = await reader.query<{ state: string }>("select state from sessions where id = $1", [id]);
        return row.rows[0]?.state === "idle" ? true : undefined;
      }, "the stored state becomes idle once the row is free");
    } finally {
      await holder.end();
      await reader.end();
    }
  });

  it("answers a compaction's 202 with compacting even when the compaction ends before its start's write lands", async () => {
    const s = await sessionServer([{ text: "Hello back." }, { text: "[summary]We said hello.[/summary]" }]);
    const id = await s.createSession({ approval_mode: "allow-all" });
    const stream = await s.stream(id);
    expect((await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Hello" } })).status).toBe(202);
    await waitForServerEvent(stream, "task_state", 3);

    const holder = new pg.Client({ connectionString: await testDatabaseFor(s.dataRoot) });
    await holder.connect();
    try {
      await holder.query("begin");
      await holder.query("select id from sessions where id = $1 for update", [id]);
      const answer = s.call(`/api/sessions/${id}/compact`, { method: "POST" });
      // The compaction runs and ends while its "running" write waits for the row.
      await waitForServerEvent(stream, "task_state", 5);
      await holder.query("commit");
      const compacted = await answer;
      expect(compacted.status).toBe(202);
      expect(await readJson<{ task_state: { state: string } }>(compacted)).toMatchObject({
        task_state: { state: "compacting" },
      });
    } finally {
      await holder.end();
    }
  });
});
