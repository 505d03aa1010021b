import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { OmniMessage } from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import { type ErrorBody, readJson } from "./helpers.js";
import {
  envelopes,
  eventually,
  execTurn,
  payloadType,
  serverEvents,
  sessionServer,
  waitForEnvelope,
  waitForServerEvent,
} from "./session-fixture.js";

// Plan mode through the API, against fake-llm over HTTP: a session created in plan mode plans
// (reads run, a write is refused), its answer is proposed as the plan, a message adjusts it, and
// POST .../plan/approve switches the mode and carries the plan out.

const PLAN = "1. Write notes.txt with hello.\n2. Read it back.";
const ADJUSTED = "1. Write notes.txt with hello and bye.\n2. Read it back.";

interface SessionBody {
  session: { id: string; approval_mode: string };
}

/** The messages of the n-th chat request fake-llm received. */
function chatRequest(s: { llm: { requests: readonly { protocol: unknown; body: unknown }[] } }, n: number) {
  const request = s.llm.requests.filter((r) => r.protocol === "openai-chat")[n];
  const messages = (request?.body as { messages?: { content?: unknown }[] } | undefined)?.messages ?? [];
  return messages.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
}

const ofType = (messages: readonly OmniMessage[], type: string) =>
  messages.filter((m) => payloadType(m) === type).map((m) => m.payload as Record<string, unknown>);

const taskStates = (events: Parameters<typeof serverEvents>[0]) =>
  serverEvents(events)
    .filter((e) => e.type === "task_state")
    .map((e) => e.state);

describe("plan mode through the API", () => {
  it("plans in plan mode, adjusts on a message, and approving runs the plan in the chosen mode", async () => {
    const s = await sessionServer([]);
    writeFileSync(join(s.workspace, "readme.md"), "the project\n");
    const notes = join(s.workspace, "notes.txt");
    s.llm.setScript([
      {
        tool_calls: [
          { id: "r1", name: "read_file", arguments: { file_path: join(s.workspace, "readme.md") } },
        ],
      },
      { tool_calls: [{ id: "w1", name: "write_file", arguments: { file_path: notes, content: "hello\n" } }] },
      { text: PLAN },
    ]);
    const created = await s.call("/api/sessions", {
      json: { workspace: s.workspace, approval_mode: "plan" },
    });
    expect(created.status).toBe(201);
    const id = (await readJson<SessionBody>(created)).session.id;
    expect((await readJson<SessionBody>(await s.call(`/api/sessions/${id}`))).session.approval_mode).toBe(
      "plan",
    );

    // Nothing to approve before a plan-mode task has answered.
    const early = await s.call(`/api/sessions/${id}/plan/approve`, { json: { mode: "allow-all" } });
    expect(early.status).toBe(409);
    expect(await readJson<ErrorBody>(early)).toMatchObject({
      error: "no_plan",
      message: expect.stringContaining("plan mode"),
    });

    const stream = await s.stream(id);
    expect((await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Add a notes file" } })).status).toBe(
      202,
    );
    let messages = await waitForEnvelope(stream, "plan_proposed");
    expect(existsSync(notes)).toBe(false);
    expect(ofType(messages, "approval_decision").map((d) => [d.tool_call_id, d.decision])).toEqual([
      ["r1", "allow"],
      ["w1", "deny"],
    ]);
    const refused = ofType(messages, "tool_call_output").find((o) => o.tool_call_id === "w1");
    expect(String(refused?.output)).toContain("plan mode: only reading tools run");
    expect(ofType(messages, "plan_proposed")[0]).toMatchObject({ text: PLAN });
    // The task started in the stored mode: its very first request was already told it plans.
    expect(chatRequest(s, 0).at(-1)).toContain("[plan_mode]");
    await waitForServerEvent(stream, "task_state", 3);

    // Adjusting is a message while in plan mode: it plans again and proposes the new plan.
    s.llm.setScript([{ text: ADJUSTED }]);
    expect((await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Also write bye" } })).status).toBe(
      202,
    );
    messages = await waitForEnvelope(stream, "plan_proposed", 2);
    expect(ofType(messages, "plan_proposed")[1]).toMatchObject({ text: ADJUSTED });
    expect(chatRequest(s, 3).at(-1)).toContain("[plan_mode]");
    await waitForServerEvent(stream, "task_state", 5);

    // Plan mode is not a mode to carry a plan out in; a body without a mode is refused too.
    for (const body of [{ mode: "plan" }, {}, { mode: "yolo" }]) {
      const refusedMode = await s.call(`/api/sessions/${id}/plan/approve`, { json: body });
      expect(refusedMode.status).toBe(400);
      const answer = await readJson<ErrorBody & { issues?: { path: string; message: string }[] }>(
        refusedMode,
      );
      expect(answer.issues?.[0]?.path).toBe("body.mode");
      if (body.mode === "plan")
        expect(answer.issues?.[0]?.message).toContain("in plan mode the plan would not run");
    }

    // While a compaction runs the plan waits (409 compacting), and the mode stays plan.
    s.llm.setScript([
      { text: "[summary]We planned notes.txt.[/summary]", chunk_size: 1, chunk_delay_ms: 60 },
    ]);
    expect((await s.call(`/api/sessions/${id}/compact`, { method: "POST" })).status).toBe(202);
    const duringCompaction = await s.call(`/api/sessions/${id}/plan/approve`, {
      json: { mode: "allow-all" },
    });
    expect(duringCompaction.status).toBe(409);
    expect(await readJson<ErrorBody>(duringCompaction)).toMatchObject({ error: "compacting" });
    expect((await readJson<SessionBody>(await s.call(`/api/sessions/${id}`))).session.approval_mode).toBe(
      "plan",
    );
    await waitForEnvelope(stream, "compaction_end");
    await waitForServerEvent(stream, "task_state", 7);

    // Approving: the session switches to allow-all and the adjusted plan is carried out.
    s.llm.setScript([
      {
        tool_calls: [
          { id: "w2", name: "write_file", arguments: { file_path: notes, content: "hello\nbye\n" } },
        ],
      },
      execTurn("sleep 30", "slow"),
      { text: "Done." },
    ]);
    const approved = await s.call(`/api/sessions/${id}/plan/approve`, { json: { mode: "allow-all" } });
    expect(approved.status).toBe(202);
    expect(await readJson(approved)).toMatchObject({
      session: { id, approval_mode: "allow-all" },
      task_state: { state: "running" },
    });
    const updated = await waitForServerEvent(stream, "session_updated");
    expect(updated[0]).toMatchObject({ session: { approval_mode: "allow-all" } });

    // One task at a time: a second approval while the plan runs is refused.
    const twice = await s.call(`/api/sessions/${id}/plan/approve`, { json: { mode: "allow-all" } });
    expect(twice.status).toBe(409);
    expect(await readJson<ErrorBody>(twice)).toMatchObject({ error: "task_in_progress" });

    await eventually(
      () => existsSync(notes) && readFileSync(notes, "utf8") === "hello\nbye\n",
      "the plan's write",
    );
    messages = envelopes(stream.events);
    const approvedTask = messages.slice(messages.map(payloadType).lastIndexOf("compaction_end"));
    expect(ofType(approvedTask, "approval_decision").find((d) => d.tool_call_id === "w2")).toMatchObject({
      decision: "allow",
      source: { kind: "mode", name: "allow-all" },
    });
    const firstOfTask = chatRequest(s, 5);
    expect(firstOfTask.join("\n")).toContain("Carry out the approved plan");
    expect(firstOfTask.at(-1)).toContain(ADJUSTED);
    expect(firstOfTask.at(-1)).not.toContain("[plan_mode]");

    await s.call(`/api/sessions/${id}/abort`, { method: "POST" });
    await eventually(() => taskStates(stream.events).at(-1) === "idle" || undefined, "the task's end");
  });

  it("a live session switched to plan by PATCH plans from its next task's first request", async () => {
    const s = await sessionServer([{ text: "Hello." }, { text: PLAN }]);
    const id = await s.createSession({ approval_mode: "allow-all" });
    const stream = await s.stream(id);
    expect((await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Hi" } })).status).toBe(202);
    await waitForEnvelope(stream, "task_end");
    await waitForServerEvent(stream, "task_state", 3);
    expect(chatRequest(s, 0).at(-1)).not.toContain("[plan_mode]");

    const patched = await s.call(`/api/sessions/${id}`, { method: "PATCH", json: { approval_mode: "plan" } });
    expect(patched.status).toBe(200);
    expect((await readJson<SessionBody>(patched)).session.approval_mode).toBe("plan");
    expect((await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Plan the notes" } })).status).toBe(
      202,
    );
    const messages = await waitForEnvelope(stream, "plan_proposed");
    expect(chatRequest(s, 1).at(-1)).toContain("[plan_mode]");
    expect(ofType(messages, "plan_proposed")[0]).toMatchObject({ text: PLAN });
  });
});
