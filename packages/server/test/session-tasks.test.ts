import { describe, expect, it } from "vitest";
import { readJson } from "./helpers.js";
import {
  envelopes,
  eventually,
  execTurn,
  isAlive,
  payloadType,
  serverEvents,
  sessionServer,
  waitForEnvelope,
  waitForServerEvent,
} from "./session-fixture.js";

interface SessionBody {
  session: {
    id: string;
    state: string;
    title: string;
    approval_mode: string;
    workspace: string;
    model_id: string;
  };
}

describe("sessions and tasks", () => {
  it("creates a session, runs a task that calls exec_command and streams it over SSE until task_end", async () => {
    const s = await sessionServer([
      execTurn("echo hello-from-penguin"),
      { text: "The command printed hello." },
    ]);
    const created = await s.call("/api/sessions", {
      json: { workspace: s.workspace, approval_mode: "allow-all", title: "First" },
    });
    expect(created.status).toBe(201);
    const { session } = await readJson<SessionBody>(created);
    expect(session).toMatchObject({
      state: "idle",
      approval_mode: "allow-all",
      model_id: "fake-model",
      title: "First",
    });

    const stream = await s.stream(session.id);
    expect(stream.status).toBe(200);
    // On connect, before anything live: the task state snapshot.
    await waitForServerEvent(stream, "task_state");
    expect(serverEvents(stream.events)[0]).toMatchObject({
      type: "task_state",
      state: "idle",
      pendingSteering: 0,
    });

    const started = await s.call(`/api/sessions/${session.id}/tasks`, { json: { input: "Say hello" } });
    expect(started.status).toBe(202);
    expect(await readJson(started)).toMatchObject({
      session_id: session.id,
      task_state: { state: "running" },
    });

    const messages = await waitForEnvelope(stream, "task_end");
    const types = messages.map(payloadType);
    expect(types[0]).toBe("session_meta");
    expect(types).toContain("partial_tool_call");
    expect(types).toContain("partial_tool_call_output");
    const output = messages.find((m) => payloadType(m) === "tool_call_output");
    expect(output?.payload).toMatchObject({ output: expect.stringContaining("hello-from-penguin") });
    expect(messages.at(-1)?.payload).toMatchObject({ type: "task_end", status: "completed" });
    // The stream's events carry ids, the snapshot events none.
    expect(stream.events.filter((e) => e.event === undefined).every((e) => e.id !== undefined)).toBe(true);
    await waitForServerEvent(stream, "task_state", 3);
    expect(
      serverEvents(stream.events)
        .filter((e) => e.type === "task_state")
        .map((e) => e.state),
    ).toEqual(["idle", "running", "idle"]);

    const after = await readJson<SessionBody>(await s.call(`/api/sessions/${session.id}`));
    expect(after.session.state).toBe("idle");
    expect(after.session.title).toBe("First");
  });

  it("answers 409 task_in_progress to a second task while one runs, and takes a title from the first task", async () => {
    const s = await sessionServer([execTurn("sleep 1; echo done"), { text: "ok" }]);
    const id = await s.createSession();
    const stream = await s.stream(id);
    expect(
      (await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Wait a second\nthen more" } })).status,
    ).toBe(202);
    const second = await s.call(`/api/sessions/${id}/tasks`, { json: { input: "again" } });
    expect(second.status).toBe(409);
    expect(await readJson(second)).toMatchObject({ error: "task_in_progress" });
    const listed = await readJson<{ sessions: { id: string; state: string; title: string }[] }>(
      await s.call("/api/sessions"),
    );
    expect(listed.sessions.find((row) => row.id === id)).toMatchObject({
      state: "running",
      title: "Wait a second",
    });
    await waitForEnvelope(stream, "task_end");
  });

  it("delivers steering to the running task with its next model request", async () => {
    const s = await sessionServer([execTurn("sleep 1"), { text: "Steered." }]);
    const id = await s.createSession();
    const stream = await s.stream(id);
    // No task yet: nothing to steer.
    expect((await s.call(`/api/sessions/${id}/steer`, { json: { input: "too early" } })).status).toBe(409);
    await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Start" } });
    await waitForEnvelope(stream, "tool_call");
    const steered = await s.call(`/api/sessions/${id}/steer`, { json: { input: "Use French please" } });
    expect(steered.status).toBe(202);
    expect(await readJson(steered)).toMatchObject({ task_state: { state: "running", pendingSteering: 1 } });
    const messages = await waitForEnvelope(stream, "task_end");
    const steering = messages.find(
      (m) => payloadType(m) === "text" && (m.payload as { text: string }).text.includes("Use French please"),
    );
    expect(steering?.payload).toMatchObject({ role: "user" });
    const secondRequest = s.llm.requests.filter((r) => r.protocol === "openai-chat")[1];
    expect(JSON.stringify(secondRequest.body)).toContain("Use French please");
    const states = serverEvents(stream.events).filter((e) => e.type === "task_state");
    expect(states.some((e) => e.pendingSteering === 1)).toBe(true);
    expect(states.at(-1)).toMatchObject({ state: "idle", pendingSteering: 0 });
  });

  it("records each request's token usage and sums it per session and user", async () => {
    const s = await sessionServer([
      { ...execTurn("true"), usage: { input_tokens: 100, output_tokens: 20 } },
      { text: "Done.", usage: { input_tokens: 150, output_tokens: 5 } },
    ]);
    const id = await s.createSession();
    const stream = await s.stream(id);
    await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Go" } });
    await waitForEnvelope(stream, "task_end");
    await waitForServerEvent(stream, "task_state", 3);
    const usage = await readJson<{
      sessions: {
        session_id: string;
        requests: number;
        output_tokens: number;
        total_tokens: number;
        cost_usd: number;
      }[];
      users: { user_id: string; requests: number }[];
      models: { provider: string; model_id: string; requests: number; output_tokens: number }[];
      total: { requests: number; output_tokens: number };
    }>(await s.call("/api/usage"));
    const row = usage.sessions.find((entry) => entry.session_id === id);
    expect(row).toMatchObject({ requests: 2, output_tokens: 25, total_tokens: 275 });
    expect(row?.cost_usd).toBeGreaterThan(0);
    expect(usage.total).toMatchObject({ requests: 2, output_tokens: 25 });
    expect(usage.users).toHaveLength(1);
    expect(usage.models).toEqual([
      expect.objectContaining({ provider: "fake", model_id: "fake-model", requests: 2, output_tokens: 25 }),
    ]);
    // The chat's context bar reads the model's window from the history answer.
    const history = await readJson<{ context_window?: number }>(await s.call(`/api/sessions/${id}/messages`));
    expect(history.context_window).toBe(100_000);
  });

  it("lists the session's commands and kills one by id", async () => {
    const s = await sessionServer([
      execTurn("sleep 60", undefined, 250),
      { text: "It runs in the background." },
    ]);
    const id = await s.createSession();
    const stream = await s.stream(id);
    await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Start a long command" } });
    await waitForEnvelope(stream, "task_end");
    const listed = await readJson<{ processes: { id: string; pid: number; status: string; cmd: string }[] }>(
      await s.call(`/api/sessions/${id}/processes`),
    );
    expect(listed.processes).toHaveLength(1);
    const [process_] = listed.processes;
    expect(process_).toMatchObject({ cmd: "sleep 60", status: "running" });
    expect(isAlive(process_.pid)).toBe(true);
    expect((await s.call(`/api/sessions/${id}/processes/cmd_999`, { method: "DELETE" })).status).toBe(404);
    expect((await s.call(`/api/sessions/${id}/processes/${process_.id}`, { method: "DELETE" })).status).toBe(
      204,
    );
    // The group is gone once kill answers; the shell's pid is freed when Node has reaped it.
    await eventually(() => !isAlive(process_.pid), "the command's process to be gone");
    const after = await eventually(async () => {
      const body = await readJson<{ processes: { status: string }[] }>(
        await s.call(`/api/sessions/${id}/processes`),
      );
      return body.processes[0].status !== "running" ? body : undefined;
    }, "the process to be listed as ended");
    expect(after.processes).toHaveLength(1);
  });

  it("serves history from the trace and the running task's partial state", async () => {
    const s = await sessionServer([
      { text: "A slowly streamed answer that takes a while.", chunk_size: 4, chunk_delay_ms: 150 },
    ]);
    const id = await s.createSession();
    const stream = await s.stream(id);
    await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Talk" } });
    await stream.until(
      (c) => envelopes(c.events).filter((m) => payloadType(m) === "partial_text").length >= 3,
    );
    const mid = await readJson<{
      messages: { type: string; payload: { type: string } }[];
      partial: { kind: string; content: string }[];
      task_state: { state: string };
      last_event_id: string;
    }>(await s.call(`/api/sessions/${id}/messages`));
    expect(mid.task_state.state).toBe("running");
    expect(mid.partial).toHaveLength(1);
    expect(mid.partial[0].kind).toBe("partial_text");
    expect("A slowly streamed answer that takes a while.".startsWith(mid.partial[0].content)).toBe(true);
    expect(mid.partial[0].content.length).toBeGreaterThan(0);
    expect(mid.last_event_id).toMatch(/^[0-9a-z]+-\d+$/);
    expect(mid.messages.some((m) => m.type === "session_meta")).toBe(false);

    await waitForEnvelope(stream, "task_end");
    const done = await readJson<{
      messages: { payload: { type: string; text?: string } }[];
      partial: unknown[];
    }>(await s.call(`/api/sessions/${id}/messages`));
    expect(done.partial).toEqual([]);
    expect(done.messages.map((m) => m.payload.type)).toContain("task_end");
    expect(
      done.messages.find((m) => m.payload.type === "text" && m.payload.text?.startsWith("A slowly")),
    ).toBeTruthy();
    const trace = await readJson<{ records: { type: string }[]; diagnostics: unknown[] }>(
      await s.call(`/api/sessions/${id}/trace`),
    );
    expect(trace.records[0].type).toBe("session_meta");
    expect(trace.diagnostics).toEqual([]);
  });

  it("refuses an unknown model and a replay cassette with 400", async () => {
    const s = await sessionServer([]);
    for (const model of ["nope/missing", "replay:/etc/passwd"]) {
      const response = await s.call("/api/sessions", { json: { workspace: s.workspace, model } });
      expect(response.status, model).toBe(400);
      expect(await readJson(response)).toMatchObject({ error: "invalid_session" });
    }
  });
});
