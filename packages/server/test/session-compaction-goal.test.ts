import { scratchpadRoot, tracesDir } from "@penguin/state";
import { findSessionFiles } from "@penguin/trace";
import { describe, expect, it } from "vitest";
import { type ErrorBody, readJson, request } from "./helpers.js";
import {
  envelopes,
  payloadType,
  serverEvents,
  sessionServer,
  waitForEnvelope,
  waitForServerEvent,
} from "./session-fixture.js";

interface Accepted {
  session_id: string;
  task_state: { state: string; pendingSteering: number };
}

/** The chat messages' text of a recorded OpenAI Chat request body. */
function chatText(body: unknown): string {
  const messages = (body as { messages?: { content?: unknown }[] }).messages ?? [];
  return messages
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)))
    .join("\n");
}

/** The `state` of every `task_state` server event the stream carried, in order. */
const taskStates = (events: Parameters<typeof serverEvents>[0]) =>
  serverEvents(events)
    .filter((e) => e.type === "task_state")
    .map((e) => e.state);

describe("compacting a session through the API", () => {
  it("POST /compact answers 202, streams compaction_begin … compaction_end and starts a new trace file", async () => {
    const s = await sessionServer([
      { text: "Hello back." },
      { text: "[summary]The user greeted us; we greeted back.[/summary]" },
      { text: "Next answer." },
    ]);
    const id = await s.createSession({ approval_mode: "allow-all" });
    const stream = await s.stream(id);
    expect((await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Hello" } })).status).toBe(202);
    await waitForEnvelope(stream, "task_end");
    await waitForServerEvent(stream, "task_state", 3);

    const compacted = await s.call(`/api/sessions/${id}/compact`, { method: "POST" });
    expect(compacted.status).toBe(202);
    expect(await readJson<Accepted>(compacted)).toEqual({
      session_id: id,
      task_state: { state: "compacting", pendingSteering: 0 },
    });
    const messages = await waitForEnvelope(stream, "compaction_end");
    const begin = messages.find((m) => payloadType(m) === "compaction_begin");
    const end = messages.find((m) => payloadType(m) === "compaction_end");
    expect(begin?.payload).toEqual({ type: "compaction_begin", reason: "manual", mode: "summarize" });
    expect(end?.payload).toMatchObject({ type: "compaction_end", reason: "manual", status: "completed" });
    // The summary streamed like a task's reply, and the new context's header came before the end.
    const afterBegin = messages.slice(messages.indexOf(begin!)).map(payloadType);
    expect(afterBegin).toContain("partial_text");
    expect(afterBegin.indexOf("session_meta")).toBeLessThan(afterBegin.indexOf("compaction_end"));
    await waitForServerEvent(stream, "task_state", 5);
    expect(taskStates(stream.events)).toEqual(["idle", "running", "idle", "compacting", "idle"]);

    // One trace file per model context: the compaction opened `_002`.
    const location = { tracesDir: tracesDir(s.dataRoot), scratchpadRoot: scratchpadRoot(s.dataRoot) };
    const files = findSessionFiles(location, id);
    expect(files).toHaveLength(2);
    expect(files[1]).toMatch(/_002\.jsonl$/);

    // The next task starts from the summary, not from the old turns.
    expect((await s.call(`/api/sessions/${id}/tasks`, { json: { input: "And now?" } })).status).toBe(202);
    await waitForEnvelope(stream, "task_end", 2);
    const next = chatText(s.llm.requests.filter((r) => r.protocol === "openai-chat")[2]?.body);
    expect(next).toContain("The user greeted us; we greeted back.");
    expect(next).not.toContain("Hello back.");
    const session = await readJson<{ session: { state: string } }>(await s.call(`/api/sessions/${id}`));
    expect(session.session.state).toBe("idle");
  });

  it("refuses a compaction while a task runs (409 task_in_progress) and a task while a compaction runs (409 compacting)", async () => {
    const s = await sessionServer([
      { text: "A slow answer that streams for a while.", chunk_size: 2, chunk_delay_ms: 30 },
      { text: "[summary]A slow summary of the talk.[/summary]", chunk_size: 2, chunk_delay_ms: 30 },
    ]);
    const id = await s.createSession();
    const stream = await s.stream(id);
    expect((await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Talk" } })).status).toBe(202);
    const duringTask = await s.call(`/api/sessions/${id}/compact`, { method: "POST" });
    expect(duringTask.status).toBe(409);
    expect(await readJson<ErrorBody>(duringTask)).toMatchObject({ error: "task_in_progress" });
    await waitForEnvelope(stream, "task_end");
    await waitForServerEvent(stream, "task_state", 3);

    expect((await s.call(`/api/sessions/${id}/compact`, { method: "POST" })).status).toBe(202);
    const task = await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Again" } });
    expect(task.status).toBe(409);
    expect(await readJson<ErrorBody>(task)).toMatchObject({
      error: "compacting",
      message: expect.stringMatching(/wait for compaction_end/),
    });
    const second = await s.call(`/api/sessions/${id}/compact`, { method: "POST" });
    expect(second.status).toBe(409);
    expect(await readJson<ErrorBody>(second)).toMatchObject({ error: "compacting" });
    // Nothing is steered into a compaction.
    expect((await s.call(`/api/sessions/${id}/steer`, { json: { input: "x" } })).status).toBe(409);
    await waitForEnvelope(stream, "compaction_end");
    expect(envelopes(stream.events).find((m) => payloadType(m) === "compaction_end")?.payload).toMatchObject({
      status: "completed",
    });
    // Two model requests: the task's and the summary; the refused task never reached the model.
    expect(s.llm.requests.filter((r) => r.protocol === "openai-chat")).toHaveLength(2);
  });

  it("abort stops a running compaction and leaves the context as it was", async () => {
    const s = await sessionServer([
      { text: "First answer." },
      { text: "[summary]never finished[/summary]", chunk_size: 1, chunk_delay_ms: 200 },
    ]);
    const id = await s.createSession();
    const stream = await s.stream(id);
    await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Hi" } });
    await waitForEnvelope(stream, "task_end");
    await waitForServerEvent(stream, "task_state", 3);
    expect((await s.call(`/api/sessions/${id}/compact`, { method: "POST" })).status).toBe(202);
    await waitForEnvelope(stream, "compaction_begin");
    const aborted = await s.call(`/api/sessions/${id}/abort`, { method: "POST" });
    expect(await readJson(aborted)).toMatchObject({ aborted: true, task_state: { state: "idle" } });
    const end = envelopes(stream.events).find((m) => payloadType(m) === "compaction_end");
    expect(end?.payload).toMatchObject({ status: "aborted" });
    const location = { tracesDir: tracesDir(s.dataRoot), scratchpadRoot: scratchpadRoot(s.dataRoot) };
    expect(findSessionFiles(location, id)).toHaveLength(1);
  });

  it("refuses a compaction without credentials (401) and a cookie POST from another origin (403)", async () => {
    const s = await sessionServer([{ text: "unused" }]);
    const id = await s.createSession();
    const anonymous = await request(s.server.url, `/api/sessions/${id}/compact`, { method: "POST" });
    expect(anonymous.status).toBe(401);
    expect(await readJson<ErrorBody>(anonymous)).toMatchObject({ error: "unauthorized" });
    const foreign = await request(s.server.url, `/api/sessions/${id}/compact`, {
      method: "POST",
      cookie: s.cookie,
      origin: "https://evil.example",
    });
    expect(foreign.status).toBe(403);
    expect(s.llm.requests).toHaveLength(0);
  });
});

// Each round reports 100 uncached input tokens and 10 of output: the goal counts 110 a round.
const usage = { input_tokens: 100, output_tokens: 10 };

describe("goal mode through the API", () => {
  it("a task started with goal runs in goal mode and its stream ends with goal_finished", async () => {
    const s = await sessionServer([
      { text: "Round one: the lexer is done.", usage },
      { text: "Wrapping up: the parser is left.", usage },
      { text: "never requested" },
    ]);
    const id = await s.createSession();
    const stream = await s.stream(id);
    const started = await s.call(`/api/sessions/${id}/tasks`, {
      json: { input: "Rewrite the parser.", goal: { budget: 100 } },
    });
    expect(started.status).toBe(202);
    const messages = await waitForEnvelope(stream, "goal_finished");
    expect(messages.at(-1)?.payload).toEqual({
      type: "goal_finished",
      outcome: "budget_limited",
      rounds: 2,
      tokens_used: 220,
      reason: "the goal's token budget of 100 is spent (110 used)",
    });
    const ends = messages.filter((m) => payloadType(m) === "task_end");
    expect(ends.map((m) => m.payload)).toEqual([expect.objectContaining({ status: "completed" })]);
    // Every round carried the objective in its [goal] block.
    const chats = s.llm.requests.filter((r) => r.protocol === "openai-chat");
    expect(chats).toHaveLength(2);
    for (const chat of chats) expect(chatText(chat.body)).toMatch(/\[goal\][\s\S]*Rewrite the parser\./);
  });

  it("a task without goal runs as before: no [goal] block, no goal_finished", async () => {
    const s = await sessionServer([{ text: "Plain answer." }]);
    const id = await s.createSession();
    const stream = await s.stream(id);
    await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Plain task." } });
    const messages = await waitForEnvelope(stream, "task_end");
    expect(messages.map(payloadType)).not.toContain("goal_finished");
    expect(chatText(s.llm.requests[0]?.body)).not.toContain("[goal]");
  });

  it("answers 400 invalid_request to a goal that is not {budget?: positive whole number}", async () => {
    const s = await sessionServer([{ text: "unused" }]);
    const id = await s.createSession();
    const bad: unknown[] = [
      { budget: 0 },
      { budget: -5 },
      { budget: 1.5 },
      { budget: "1000" },
      { budget: null },
      { rounds: 3 },
      "yes",
      true,
      [],
    ];
    for (const goal of bad) {
      const response = await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Do it.", goal } });
      expect(response.status, JSON.stringify(goal)).toBe(400);
      expect(await readJson<ErrorBody>(response), JSON.stringify(goal)).toMatchObject({
        error: "invalid_request",
      });
    }
    expect(s.llm.requests).toHaveLength(0);
    const session = await readJson<{ session: { state: string } }>(await s.call(`/api/sessions/${id}`));
    expect(session.session.state).toBe("idle");
  });

  it("refuses a goal task without credentials (401)", async () => {
    const s = await sessionServer([{ text: "unused" }]);
    const id = await s.createSession();
    const anonymous = await request(s.server.url, `/api/sessions/${id}/tasks`, {
      json: { input: "Do it.", goal: { budget: 10 } },
    });
    expect(anonymous.status).toBe(401);
    expect(s.llm.requests).toHaveLength(0);
  });
});
