import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readJson, request } from "./helpers.js";
import {
  payloadType,
  serverEvents,
  sessionServer,
  waitForEnvelope,
  waitForServerEvent,
} from "./session-fixture.js";

// The agent's questions to the user (`ask`) over real HTTP: the question arrives on the session's
// stream as `question_request` (and as the trace's `question_asked`), waits in the runtime, and is
// answered through POST /api/sessions/:id/questions/:questionId/answer.

const ask = (id: string, question: string) => ({ id, name: "ask", arguments: { question } });

/** The default agent with the extended preset, which has `ask`. */
async function extendedAgent(dataRoot: string): Promise<void> {
  const dir = join(dataRoot, "agents", "default");
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "system_config.yaml"), "tools:\n  preset: extended\n");
}

interface PendingQuestionBody {
  question_id: string;
  text: string;
  tool_call_id: string;
  asked_at: string;
}

describe("questions over HTTP", () => {
  it("ask answered from the API: the pending question is streamed, listed and answered once", async () => {
    const s = await sessionServer([
      { tool_calls: [ask("call_ask", "Which region should I deploy to?")] },
      { text: "Deploying to eu-west." },
    ]);
    await extendedAgent(s.dataRoot);
    const id = await s.createSession({ approval_mode: "allow-all" });
    const stream = await s.stream(id);
    await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Deploy it." } });

    const [pending] = await waitForServerEvent(stream, "question_request");
    expect(pending).toMatchObject({
      question_id: "q_1",
      text: "Which region should I deploy to?",
      tool_call_id: "call_ask",
    });
    const asked = (await waitForEnvelope(stream, "question_asked")).find(
      (m) => payloadType(m) === "question_asked",
    );
    expect(asked?.payload).toMatchObject({ question_id: "q_1", from: "root", to: "user" });

    const listed = await readJson<{ questions: PendingQuestionBody[] }>(
      await s.call(`/api/sessions/${id}/questions`),
    );
    expect(listed.questions.map((q) => q.question_id)).toEqual(["q_1"]);
    // A client that loads the history now sees the question too.
    const history = await readJson<{ questions: PendingQuestionBody[] }>(
      await s.call(`/api/sessions/${id}/messages`),
    );
    expect(history.questions.map((q) => q.question_id)).toEqual(["q_1"]);
    // A client that connects now gets it before the live events.
    const late = await s.stream(id);
    await late.until((c) => serverEvents(c.events).some((e) => e.type === "question_request"));

    // Answers are authenticated like every session route, and their body is checked.
    const anonymous = await request(s.server.url, `/api/sessions/${id}/questions/q_1/answer`, {
      json: { text: "eu-west" },
    });
    expect(anonymous.status).toBe(401);
    expect((await s.call(`/api/sessions/${id}/questions/q_1/answer`, { json: { text: "" } })).status).toBe(
      400,
    );
    expect((await s.call(`/api/sessions/${id}/questions/q_1/answer`, { json: {} })).status).toBe(400);
    expect((await s.call(`/api/sessions/${id}/questions/q_9/answer`, { json: { text: "x" } })).status).toBe(
      404,
    );

    const answered = await s.call(`/api/sessions/${id}/questions/q_1/answer`, { json: { text: "eu-west" } });
    expect(answered.status).toBe(200);
    expect(await readJson(answered)).toEqual({ question_id: "q_1", text: "eu-west" });
    const again = await s.call(`/api/sessions/${id}/questions/q_1/answer`, { json: { text: "us-east" } });
    expect(again.status).toBe(409);
    expect(await readJson(again)).toMatchObject({ error: "already_answered" });

    const messages = await waitForEnvelope(stream, "task_end");
    const answer = messages.find((m) => payloadType(m) === "question_answered");
    expect(answer?.payload).toMatchObject({ question_id: "q_1", from: "user", text: "eu-west" });
    const output = messages.find(
      (m) =>
        payloadType(m) === "tool_call_output" &&
        (m.payload as { tool_call_id: string }).tool_call_id === "call_ask",
    );
    expect(output?.payload).toMatchObject({
      stop_reason: "completed",
      output: "Answer to q_1 from user:\neu-west",
    });
    expect(s.llm.requests.at(-1)?.rawBody).toContain("Answer to q_1 from user:\\neu-west");
    const after = await readJson<{ questions: PendingQuestionBody[] }>(
      await s.call(`/api/sessions/${id}/questions`),
    );
    expect(after.questions).toEqual([]);
  });

  it("an abort withdraws the waiting question: it leaves the list and a late answer gets 409", async () => {
    const s = await sessionServer([{ tool_calls: [ask("call_ask", "Shall I go on?")] }, { text: "never" }]);
    await extendedAgent(s.dataRoot);
    const id = await s.createSession({ approval_mode: "allow-all" });
    const stream = await s.stream(id);
    await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Go." } });
    await waitForServerEvent(stream, "question_request");

    expect((await s.call(`/api/sessions/${id}/abort`, { method: "POST" })).status).toBe(200);
    const messages = await waitForEnvelope(stream, "task_end");
    const output = messages.find((m) => payloadType(m) === "tool_call_output");
    expect(output?.payload).toMatchObject({ tool_call_id: "call_ask", stop_reason: "aborted" });
    const listed = await readJson<{ questions: PendingQuestionBody[] }>(
      await s.call(`/api/sessions/${id}/questions`),
    );
    expect(listed.questions).toEqual([]);
    const late = await s.call(`/api/sessions/${id}/questions/q_1/answer`, { json: { text: "yes" } });
    expect(late.status).toBe(409);
  });
});
