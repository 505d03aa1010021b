import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";
import { chatMessages, collect, kind, MODEL, RETRY_FAST, setup, traceRecords } from "./fixtures.js";

const start = cleanedUpAfterEach(setup);

const exec = (cmd: string, id?: string) => ({
  ...(id ? { id } : {}),
  name: "exec_command",
  arguments: { description: "run it", cmd },
});

describe("SDK end to end (fake-llm over HTTP, real processes, real data root)", () => {
  it("runs a prompt through tool calls to a final answer, with the trace in order and a stable prefix", async () => {
    const env = await start([
      {
        text: "Running both.",
        tool_calls: [exec("sleep 0.3; echo first-out", "call_a"), exec("echo second-out", "call_b")],
      },
      { text: "Both ran." },
    ]);
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    expect(session.id).toMatch(/^\d{8}-\d{6}-[a-z0-9]{6}$/);
    const yielded = await collect(session.run("Run the two commands.", { approve: allowAll }));
    await session.dispose();

    // The model saw both outputs, in call order, after its calls.
    const second = chatMessages(env.llm, 1);
    const tools = second.filter((m) => m.role === "tool");
    expect(tools.map((m) => m.tool_call_id)).toEqual(["call_a", "call_b"]);
    expect(String(tools[0].content)).toContain("first-out");
    expect(String(tools[1].content)).toContain("second-out");
    // Outputs streamed in completion order.
    const outputs = yielded
      .filter((m) => kind(m) === "tool_call_output")
      .map((m) => (m.payload as { tool_call_id: string }).tool_call_id);
    expect(outputs).toEqual(["call_b", "call_a"]);

    // The request prefix is byte-stable: request 1's messages open request 2, same system prompt and tools.
    const [r1, r2] = env.llm.requests.map((r) => r.body as { messages: unknown[]; tools: unknown });
    expect(JSON.stringify(r2.messages.slice(0, r1.messages.length))).toBe(JSON.stringify(r1.messages));
    expect(JSON.stringify(r2.tools)).toBe(JSON.stringify(r1.tools));

    // The trace: what was yielded minus partials, in order.
    const records = traceRecords(session.tracePath);
    expect(records.map(kind)).toEqual(yielded.filter((m) => !kind(m).startsWith("partial_")).map(kind));
    const order = records.map(kind);
    // token_usage and request_end come when the stream ends, before the slow call's output.
    const expected = [
      "session_meta",
      "tool_list_ready",
      "text",
      "request_begin",
      "text",
      "tool_call",
      "approval_decision",
      "token_usage",
      "request_end",
      "tool_call_output",
      "request_begin",
      "text",
      "token_usage",
      "request_end",
      "task_end",
    ];
    let at = 0;
    for (const k of order) if (k === expected[at]) at++;
    expect(at).toBe(expected.length);
    const meta = records[0].payload as {
      session_id: string;
      provider: string;
      model_id: string;
      system_prompt: string;
      workspace: string;
      model_context_window: number;
    };
    expect(meta).toMatchObject({
      session_id: session.id,
      provider: "fake",
      model_id: "fake-model",
      workspace: env.workspaceDir,
      model_context_window: 100_000,
    });
    expect((r1.messages[0] as { content: string }).content).toBe(meta.system_prompt);
    expect(session.tracePath).toContain(join(env.dataRoot, "traces"));
  });

  it("denies every call when run without approve, and the model reads the denial", async () => {
    const env = await start([
      { tool_calls: [exec("touch should-not-exist", "call_x")] },
      { text: "Understood." },
    ]);
    const session = await env.agent.createSession({ workspaceDir: env.workspaceDir, model: MODEL });
    const yielded = await collect(session.run("Try it."));
    await session.dispose();
    const tool = chatMessages(env.llm, 1).find((m) => m.role === "tool");
    expect(String(tool?.content)).toContain("Tool call denied");
    expect(yielded.find((m) => kind(m) === "approval_decision")?.payload).toMatchObject({
      decision: "deny",
      source: { kind: "default" },
    });
    expect(() => readFileSync(join(env.workspaceDir, "should-not-exist"))).toThrow();
  });

  it("the guardrail forbids a dangerous command under allow-all", async () => {
    const env = await start([
      { tool_calls: [exec("echo ok && sh -c 'rm -rf ~'", "call_x")] },
      { text: "Refused." },
    ]);
    const session = await env.agent.createSession({ workspaceDir: env.workspaceDir, model: MODEL });
    const yielded = await collect(session.run("Clean up.", { approve: allowAll }));
    await session.dispose();
    expect(yielded.find((m) => kind(m) === "approval_decision")?.payload).toMatchObject({
      decision: "forbidden",
      source: { kind: "guardrail", name: "rm-rootish" },
    });
    expect(String(chatMessages(env.llm, 1).find((m) => m.role === "tool")?.content)).toContain(
      "denied by policy",
    );
  });

  it("retries 429 (retry-after) and 500 without re-running tools; auth stops at once", async () => {
    const env = await start([
      { tool_calls: [exec("echo ran >> runs.txt", "call_once")] },
      { error: { status: 500, message: "boom" } },
      { error: { status: 429, message: "slow down", retry_after: 0.02 } },
      { text: "Done after retries." },
    ]);
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    const yielded = await collect(session.run("Go.", { approve: allowAll }));
    await session.dispose();
    const ends = yielded
      .filter((m) => kind(m) === "request_end")
      .map((m) => m.payload as { status: string; attempt: number; retry_in_ms?: number });
    expect(ends.map((e) => [e.status, e.attempt])).toEqual([
      ["completed", 1],
      ["failed", 1],
      ["failed", 2],
      ["completed", 3],
    ]);
    expect(ends[2].retry_in_ms).toBe(20);
    expect(readFileSync(join(env.workspaceDir, "runs.txt"), "utf8")).toBe("ran\n");
    expect(yielded.at(-1)?.payload).toMatchObject({ type: "task_end", status: "completed" });

    const bad = await start([{ text: "never" }], { apiKey: "sk-wrong" });
    const denied = await bad.agent.createSession({
      workspaceDir: bad.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    const authRun = await collect(denied.run("Hi.", { approve: allowAll }));
    await denied.dispose();
    expect(bad.llm.requests).toHaveLength(1);
    expect(authRun.at(-1)?.payload).toMatchObject({ type: "task_end", status: "auth" });
  });

  it("an interrupt mid-tool leaves a session that a new Session object resumes from the trace", async () => {
    const env = await start([
      { text: "Sleeping.", tool_calls: [exec("sleep 20", "call_sleep")] },
      { text: "Picked up where we left off." },
    ]);
    const first = await env.agent.createSession({ workspaceDir: env.workspaceDir, model: MODEL });
    const controller = new AbortController();
    const yielded = await collect(
      first.run("Sleep.", { approve: allowAll, signal: controller.signal }),
      (m) => {
        if (kind(m) === "partial_tool_call_output") setTimeout(() => controller.abort(), 100);
      },
    );
    await first.dispose();
    expect(yielded.slice(-2).map(kind)).toEqual(["abort", "task_end"]);
    expect(yielded.at(-1)?.payload).toMatchObject({ status: "aborted" });

    const resumed = await env.agent.resumeSession(first.id);
    expect(resumed.tracePath).toBe(first.tracePath);
    // Both sessions name the same session_meta: the one the trace opened with.
    const recordedMeta = traceRecords(first.tracePath)[0];
    expect(recordedMeta?.type).toBe("session_meta");
    expect(first.meta).toEqual(recordedMeta);
    expect(resumed.meta).toEqual(recordedMeta);
    const more = await collect(resumed.run("Continue.", { approve: allowAll }));
    await resumed.dispose();
    expect(more.at(-1)?.payload).toMatchObject({ type: "task_end", status: "completed" });
    const sent = chatMessages(env.llm, 1);
    expect(sent.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "user"]);
    expect(sent[2].tool_calls?.[0].id).toBe("call_sleep");
    expect(sent[4].content).toBe("Continue.");
    // The system prompt is reused byte for byte.
    expect(sent[0].content).toBe(chatMessages(env.llm, 0)[0].content);
    expect(traceRecords(first.tracePath).filter((m) => kind(m) === "session_meta")).toHaveLength(1);
  });

  it("an interrupt mid-stream is handed back as [turn_aborted] after a resume", async () => {
    const env = await start([
      { text: "A long answer that streams slowly, chunk by chunk.", chunk_size: 4, chunk_delay_ms: 40 },
      { text: "Continuing." },
    ]);
    const first = await env.agent.createSession({ workspaceDir: env.workspaceDir, model: MODEL });
    const controller = new AbortController();
    let deltas = 0;
    await collect(first.run("Write.", { approve: allowAll, signal: controller.signal }), (m) => {
      if (kind(m) === "partial_text" && ++deltas === 3) controller.abort();
    });
    await first.dispose();
    const resumed = await env.agent.resumeSession(first.id);
    await collect(resumed.run("Go on.", { approve: allowAll }));
    await resumed.dispose();
    // The adapter joins consecutive user texts into one message; the order inside is kept.
    const sent = chatMessages(env.llm, 1)
      .filter((m) => m.role === "user")
      .map((m) => String(m.content))
      .join("\n");
    expect(sent).toMatch(
      /^Write\.[\s\S]*\[turn_aborted\][\s\S]*assistant: A long[\s\S]*\[\/turn_aborted\][\s\S]*Go on\.$/,
    );
  });

  it("steering reaches the next request; max_turns, budget and context window end with limit_reached", async () => {
    const env = await start([
      { text: "Working on it slowly.", chunk_size: 3, chunk_delay_ms: 30 },
      { text: "Switched to French." },
    ]);
    const session = await env.agent.createSession({ workspaceDir: env.workspaceDir, model: MODEL });
    expect(session.steer("too early")).toBe(false);
    let steered = false;
    await collect(session.run("Start.", { approve: allowAll }), (m) => {
      if (!steered && kind(m) === "partial_text") steered = session.steer("answer in French");
    });
    await session.dispose();
    expect(String(chatMessages(env.llm, 1).at(-1)?.content)).toBe(
      "[user_steering]\nanswer in French\n[/user_steering]",
    );

    const looping = await start(
      Array.from({ length: 4 }, () => ({
        tool_calls: [exec("true")],
        usage: { input_tokens: 400, output_tokens: 100 },
      })),
      { prices: true },
    );
    const limited = await looping.agent.createSession({
      workspaceDir: looping.workspaceDir,
      model: MODEL,
      maxTurns: 2,
    });
    const turns = await collect(limited.run("Loop.", { approve: allowAll }));
    await limited.dispose();
    expect(turns.find((m) => kind(m) === "limit_reached")?.payload).toMatchObject({
      limit: "max_turns",
      max: 2,
    });
    expect(turns.find((m) => kind(m) === "token_usage")?.payload).toMatchObject({
      request_cost_usd: expect.any(Number),
    });

    const budgeted = await looping.agent.createSession({
      workspaceDir: looping.workspaceDir,
      model: MODEL,
      budget: { maxTokens: 900 },
    });
    const spent = await collect(budgeted.run("Loop.", { approve: allowAll }));
    await budgeted.dispose();
    expect(spent.find((m) => kind(m) === "limit_reached")?.payload).toMatchObject({
      limit: "tokens",
      max: 900,
    });

    const tiny = await start([{ text: "never" }], { context_window: 200 });
    const small = await tiny.agent.createSession({ workspaceDir: tiny.workspaceDir, model: MODEL });
    const overflow = await collect(small.run("Hello.", { approve: allowAll }));
    await small.dispose();
    expect(overflow.find((m) => kind(m) === "limit_reached")?.payload).toMatchObject({
      limit: "context_window",
      max: 200,
    });
    expect(tiny.llm.requests).toHaveLength(0);
  });
});
