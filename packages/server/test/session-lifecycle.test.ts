import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { findSessionFiles } from "@penguin/trace";
import { describe, expect, it } from "vitest";
import { readJson } from "./helpers.js";
import {
  envelopes,
  eventually,
  execTurn,
  isAlive,
  payloadType,
  sessionServer,
  waitForEnvelope,
  waitForServerEvent,
} from "./session-fixture.js";
import { SseClient } from "./sse-client.js";

const location = (dataRoot: string) => ({
  tracesDir: join(dataRoot, "traces"),
  scratchpadRoot: join(dataRoot, "scratchpad"),
});

describe("session lifecycle", () => {
  it("resumes after a reconnect with Last-Event-ID and loses nothing of the stream", async () => {
    const s = await sessionServer([
      { text: "One two three four five six seven eight nine ten.", chunk_size: 3, chunk_delay_ms: 60 },
    ]);
    const id = await s.createSession();
    const whole = await s.stream(id);
    const first = await s.stream(id);
    await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Count" } });
    await first.until(
      (c) => envelopes(c.events).filter((m) => payloadType(m) === "partial_text").length >= 4,
    );
    const resumeFrom = first.lastEventId();
    await first.close();
    const seen = first.events.filter((e) => e.id !== undefined).map((e) => e.id);

    // Reconnect mid-stream: the gap is replayed, then the snapshot, then live events.
    const second = await s.stream(id, resumeFrom);
    await waitForEnvelope(second, "task_end");
    await waitForEnvelope(whole, "task_end");
    const afterReconnect = second.events.filter((e) => e.id !== undefined).map((e) => e.id);
    const everything = whole.events.filter((e) => e.id !== undefined).map((e) => e.id);
    expect([...seen, ...afterReconnect]).toEqual(everything);
    const text = envelopes(second.events)
      .concat(envelopes(first.events))
      .filter((m) => payloadType(m) === "partial_text")
      .map((m) => (m.payload as { text: string }).text);
    expect(text.length).toBeGreaterThan(4);
    // The stream's final text equals the concatenation of every delta the two connections got.
    const fullText = [...envelopes(first.events), ...envelopes(second.events)]
      .filter((m) => payloadType(m) === "partial_text")
      .map((m) => (m.payload as { text: string }).text)
      .join("");
    expect(fullText).toBe("One two three four five six seven eight nine ten.");

    // An id from another server process gets resync_required first.
    const stranger = await s.stream(id, "zzz0000-5");
    const [resync] = await waitForServerEvent(stranger, "resync_required");
    expect(resync).toMatchObject({ reason: "unknown_epoch" });
  });

  it("delete ends the task and every process and removes the trace, the scratchpad and the rows", async () => {
    const s = await sessionServer([execTurn("sleep 60", undefined, 250), { text: "started" }]);
    const id = await s.createSession();
    const events = await SseClient.connect(`${s.server.url}/api/events`, { cookie: s.cookie });
    const stream = await s.stream(id);
    await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Start" } });
    await waitForEnvelope(stream, "task_end");
    const [proc] = (
      await readJson<{ processes: { pid: number }[] }>(await s.call(`/api/sessions/${id}/processes`))
    ).processes;
    const scratchpad = join(s.dataRoot, "scratchpad", id);
    await mkdir(scratchpad, { recursive: true });
    await writeFile(join(scratchpad, "GOAL.yaml"), "goal: test\n");
    expect(findSessionFiles(location(s.dataRoot), id).length).toBe(1);

    const deleted = await s.call(`/api/sessions/${id}`, { method: "DELETE" });
    expect(deleted.status).toBe(204);
    await eventually(() => !isAlive(proc.pid), "the command to end");
    expect(findSessionFiles(location(s.dataRoot), id)).toEqual([]);
    expect(existsSync(scratchpad)).toBe(false);
    expect((await s.call(`/api/sessions/${id}`)).status).toBe(404);
    expect(
      await s.server.db.selectFrom("usage_records").selectAll().where("session_id", "=", id).execute(),
    ).toEqual([]);
    await stream.waitForEnd();
    await events.until((c) => c.events.some((e) => JSON.parse(e.data).type === "session_deleted"));
    const types = events.events.map((e) => JSON.parse(e.data).type);
    expect(types).toEqual(["session_state", "session_state", "session_deleted"]);
    await events.close();
  });

  it("releases an idle runtime and resumes the session from its trace on the next task", async () => {
    const s = await sessionServer([{ text: "First answer." }, { text: "Second answer, with context." }], {
      idleReleaseMs: 200,
    });
    const id = await s.createSession();
    const stream = await s.stream(id);
    await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Remember the word pelican" } });
    await waitForEnvelope(stream, "task_end");
    await eventually(() => s.server.sessions.runtime(id) === undefined, "the runtime to be released");

    const again = await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Which word?" } });
    expect(again.status).toBe(202);
    await waitForEnvelope(stream, "task_end", 2);
    // The resumed session sent the first task's context with the second request.
    const second = s.llm.requests.filter((r) => r.protocol === "openai-chat")[1];
    const body = JSON.stringify(second.body);
    expect(body).toContain("Remember the word pelican");
    expect(body).toContain("First answer.");
    // One trace, both tasks.
    const trace = await readJson<{ records: { payload?: { type: string } }[] }>(
      await s.call(`/api/sessions/${id}/trace`),
    );
    expect(trace.records.filter((r) => r.payload?.type === "task_end")).toHaveLength(2);
    expect(trace.records.filter((r) => (r as { type: string }).type === "session_meta")).toHaveLength(1);
  });

  it("a client back with an id from before an idle release gets resync_required, not the next task from its middle", async () => {
    const s = await sessionServer(
      [{ text: "First answer." }, { text: "A second answer, streamed in many small pieces.", chunk_size: 2 }],
      { idleReleaseMs: 200 },
    );
    const id = await s.createSession();
    const channel = `session:${id}`;
    const first = await s.stream(id);
    await s.call(`/api/sessions/${id}/tasks`, { json: { input: "One" } });
    await waitForEnvelope(first, "task_end");
    const midway = first.events.filter((e) => e.id !== undefined)[1].id;
    await first.close();
    await eventually(() => s.server.hub.stats(channel).subscribers === 0, "the stream to be gone");
    await eventually(() => s.server.sessions.runtime(id) === undefined, "the runtime to be released");
    expect(s.server.hub.lastEventId(channel)).toBeUndefined();

    // Nobody watches the second task: it runs on a channel opened again after the release.
    expect((await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Two" } })).status).toBe(202);
    await eventually(async () => {
      const body = await readJson<{ task_state: { state: string } }>(
        await s.call(`/api/sessions/${id}/messages`),
      );
      return body.task_state.state === "idle";
    }, "the second task to end");

    const back = await s.stream(id, midway);
    await waitForServerEvent(back, "resync_required");
    expect(back.events[0].event).toBe("server_event");
    expect(JSON.parse(back.events[0].data)).toEqual({ type: "resync_required", reason: "gap_too_old" });
    expect(back.events[0].id).toBe(s.server.hub.lastEventId(channel));
  });

  it("stopping the server ends running tasks and their processes", async () => {
    const s = await sessionServer([
      execTurn("sleep 60", undefined, 250),
      { text: "unused", stall: { after_chunks: 0 } },
    ]);
    const id = await s.createSession();
    const stream = await s.stream(id);
    await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Start" } });
    await waitForEnvelope(stream, "tool_call_output");
    const [proc] = (
      await readJson<{ processes: { pid: number }[] }>(await s.call(`/api/sessions/${id}/processes`))
    ).processes;
    await s.server.close();
    await eventually(() => !isAlive(proc.pid), "the command to end");
    const trace = findSessionFiles(location(s.dataRoot), id);
    expect(trace.length).toBe(1);
  });
});
