import { isPartialMessage, type OmniMessage } from "@penguin/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { allowAll, alwaysAsk, denyAll } from "../../src/approval/policies.js";
import type { ModelRequest } from "../../src/models/types.js";
import { createTestSession, eventsOf, payloadTypes, testModel } from "./harness.js";

const sessions: { dispose(): Promise<void> }[] = [];
function session(...args: Parameters<typeof createTestSession>) {
  const s = createTestSession(...args);
  sessions.push(s);
  return s;
}
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.dispose()));
});

const texts = (request: ModelRequest) =>
  request.messages.map((m) => {
    const p = m.payload;
    if (p.type === "text") return `${p.role}:${p.text}`;
    if (p.type === "tool_call") return `call:${p.tool_call_id}`;
    if (p.type === "tool_call_output") return `output:${p.tool_call_id}:${p.output}`;
    return p.type;
  });

describe("agent loop", () => {
  it("runs calls, feeds outputs back in call order, and ends when a turn has no call", async () => {
    const { adapter, requests } = testModel([
      {
        text: "Two things.",
        calls: [
          { name: "echo", args: { text: "slow", ms: 150 }, id: "a" },
          { name: "echo", args: { text: "fast" }, id: "b" },
        ],
      },
      { text: "Done." },
    ]);
    const s = session(adapter);
    const run = await s.run("go", allowAll);
    expect(run.outcome).toEqual({ status: "completed" });
    // Outputs stream in completion order…
    const outputs = run.messages
      .filter((m) => m.payload.type === "tool_call_output")
      .map((m) => (m.payload as { tool_call_id: string }).tool_call_id);
    expect(outputs).toEqual(["b", "a"]);
    // …and reach the model in call order.
    expect(texts(requests[1])).toEqual([
      "user:go",
      "assistant:Two things.",
      "call:a",
      "call:b",
      "output:a:slow",
      "output:b:fast",
    ]);
    // What is recorded is exactly what was yielded, minus partials, in the same order.
    expect(run.recorded).toEqual(run.messages.filter((m) => !isPartialMessage(m)));
    const types = payloadTypes(run.messages);
    expect(types[0]).toBe("text");
    expect(types.at(-1)).toBe("task_end");
    // token_usage then request_end after every request.
    for (const [i, t] of types.entries()) if (t === "token_usage") expect(types[i + 1]).toBe("request_end");
    expect(eventsOf(run.messages, "request_end").map((e) => e.status)).toEqual(["completed", "completed"]);
    expect(eventsOf(run.messages, "token_usage").at(-1)?.session).toMatchObject({ total: 20, output: 4 });
  });

  it("starts an approved call at once while a later call still waits for a human", async () => {
    const { adapter } = testModel([
      {
        calls: [
          { name: "echo", args: { text: "first" }, id: "a" },
          { name: "fail", args: { text: "x" }, id: "b" },
        ],
      },
      { text: "ok" },
    ]);
    const s = session(adapter);
    let firstOutputSeen: () => void = () => {};
    const seen = new Promise<void>((resolve) => {
      firstOutputSeen = resolve;
    });
    const order: string[] = [];
    const ask = async (call: OmniMessage & { payload: { name: string } }) => {
      if (call.payload.name === "echo") return "allow" as const;
      order.push("asked-b");
      await seen;
      order.push("answered-b");
      return "deny" as const;
    };
    const run = await s.run("go", alwaysAsk(ask), {
      onMessage: (m) => {
        if (
          m.payload.type === "tool_call_output" &&
          (m.payload as { tool_call_id: string }).tool_call_id === "a"
        ) {
          order.push("output-a");
          firstOutputSeen();
        }
      },
    });
    expect(order).toEqual(["asked-b", "output-a", "answered-b"]);
    const decisions = eventsOf(run.messages, "approval_decision");
    expect(decisions.map((d) => [d.tool_call_id, d.decision])).toEqual([
      ["a", "allow"],
      ["b", "deny"],
    ]);
    const denied = run.messages.find(
      (m) =>
        m.payload.type === "tool_call_output" && (m.payload as { tool_call_id: string }).tool_call_id === "b",
    );
    expect(denied?.payload).toMatchObject({ output: "Tool call denied by user.", stop_reason: "aborted" });
  });

  it("denies every call when no approve is given, and the model sees the denial", async () => {
    const { adapter, requests } = testModel([
      { calls: [{ name: "echo", args: { text: "x" }, id: "a" }] },
      { text: "fine" },
    ]);
    const s = session(adapter);
    const run = await s.run("go", undefined);
    expect(eventsOf(run.messages, "approval_decision")[0]).toMatchObject({
      decision: "deny",
      source: { kind: "default" },
    });
    expect(texts(requests[1]).at(-1)).toBe("output:a:Tool call denied by policy.");
  });

  it("retries failed requests with the failed attempt as context, and never re-runs a tool", async () => {
    let runs = 0;
    const counting = [
      {
        name: "count",
        definition: {
          name: "count",
          description: "counts",
          parameters: { type: "object" as const },
          permission: "r" as const,
          timeoutMs: 1000,
          maxOutputLength: 1000,
        },
        async *execute(_args: Record<string, unknown>, ctx: { toolCallId: string }) {
          runs++;
          yield {
            timestamp: "",
            type: "model_msg" as const,
            payload: {
              type: "partial_tool_call_output" as const,
              event_type: "delta" as const,
              tool_call_id: ctx.toolCallId,
              output: `run ${runs}`,
            },
          };
        },
      },
    ];
    const { adapter, requests } = testModel([
      { text: "Let me count", calls: [{ name: "count", args: {}, id: "c1" }], fail: "failed" },
      { fail: "timeout", retryAfterMs: 3 },
      { text: "Counted once." },
    ]);
    const s = session(adapter, {}, counting);
    const run = await s.run("count", allowAll);
    expect(run.outcome.status).toBe("completed");
    expect(runs).toBe(1);
    const ends = eventsOf(run.messages, "request_end");
    expect(ends.map((e) => [e.status, e.attempt, e.retry_in_ms])).toEqual([
      ["failed", 1, 1],
      ["timeout", 2, 3],
      ["completed", 3, undefined],
    ]);
    expect(eventsOf(run.messages, "request_begin").map((e) => e.attempt)).toEqual([1, 2, 3]);
    const retried = texts(requests[1]).at(-1) ?? "";
    expect(retried).toContain("[turn_retried]");
    expect(retried).toContain("tool output (c1, completed): run 1");
    expect(retried).toContain("Let me count");
    // The prefix of each request is the whole previous request.
    expect(texts(requests[1]).slice(0, requests[0].messages.length)).toEqual(texts(requests[0]));
    expect(texts(requests[2]).slice(0, requests[1].messages.length)).toEqual(texts(requests[1]));
  });

  it("stops at once on auth and on a permanent failure; gives up after the retries", async () => {
    const auth = testModel([{ fail: "auth" }]);
    const a = await session(auth.adapter).run("x", allowAll);
    expect(a.outcome.status).toBe("auth");
    expect(auth.requests).toHaveLength(1);

    const permanent = testModel([{ fail: "failed", permanent: true }]);
    expect((await session(permanent.adapter).run("x", allowAll)).outcome.status).toBe("failed");
    expect(permanent.requests).toHaveLength(1);

    const flaky = testModel(Array.from({ length: 10 }, () => ({ fail: "malformed" as const })));
    const f = await session(flaky.adapter).run("x", allowAll);
    expect(flaky.requests).toHaveLength(6);
    expect(f.outcome).toMatchObject({
      status: "malformed",
      message: expect.stringContaining("after 6 attempts"),
    });
  });

  it("an interrupt mid-stream ends the task aborted and hands the unfinished turn to the next run", async () => {
    const { adapter, requests } = testModel([
      { text: "I am writing a long answer", delayMs: 20 },
      { text: "resumed" },
    ]);
    const s = session(adapter);
    const controller = new AbortController();
    const run = await s.run("go", allowAll, {
      signal: controller.signal,
      onMessage: (m) => {
        if (m.payload.type === "partial_text" && (m.payload as { text: string }).text === "I am")
          controller.abort();
      },
    });
    expect(run.outcome.status).toBe("aborted");
    expect(payloadTypes(run.messages).slice(-2)).toEqual(["abort", "task_end"]);
    const next = await s.run("continue", allowAll);
    expect(next.outcome.status).toBe("completed");
    const sent = texts(requests[1]);
    expect(sent[0]).toBe("user:go");
    expect(sent[1]).toContain("[turn_aborted]");
    expect(sent[1]).toContain("assistant (cut off): I am");
    expect(sent[2]).toBe("user:continue");
  });

  it("an interrupt mid-tool stops the tool, keeps the committed reply, and every call has its output", async () => {
    const { adapter, requests } = testModel([
      { text: "Working.", calls: [{ name: "echo", args: { text: "never", ms: 5_000 }, id: "slow" }] },
      { text: "after" },
    ]);
    const s = session(adapter);
    const controller = new AbortController();
    const run = await s.run("go", allowAll, {
      signal: controller.signal,
      onMessage: (m) => {
        if (m.payload.type === "request_end") setTimeout(() => controller.abort(), 20);
      },
    });
    expect(run.outcome.status).toBe("aborted");
    const output = run.messages.find((m) => m.payload.type === "tool_call_output");
    expect(output?.payload).toMatchObject({ tool_call_id: "slow", stop_reason: "aborted" });
    await s.run("go on", allowAll);
    expect(texts(requests[1]).slice(0, 3)).toEqual(["user:go", "assistant:Working.", "call:slow"]);
    expect(texts(requests[1])[3]).toMatch(/^output:slow:/);
    expect(texts(requests[1])[4]).toBe("user:go on");
  });

  it("delivers steering at the next request and keeps the task going", async () => {
    const { adapter, requests } = testModel([
      { text: "thinking about it", delayMs: 5 },
      { text: "steered answer" },
    ]);
    const s = session(adapter);
    let steered = false;
    const run = await s.run("go", allowAll, {
      onMessage: (m) => {
        if (!steered && m.payload.type === "partial_text") {
          steered = true;
          s.steering.push("use French");
        }
      },
    });
    expect(run.outcome.status).toBe("completed");
    expect(requests).toHaveLength(2);
    expect(texts(requests[1]).at(-1)).toBe("user:[user_steering]\nuse French\n[/user_steering]");
  });

  it("ends with limit_reached at max_turns, a token budget, a cost budget and the context window", async () => {
    const loop = () =>
      testModel(
        Array.from({ length: 5 }, (_, n) => ({
          calls: [{ name: "echo", args: { text: `t${n}` } }],
          usage: { total: 1000, output: 100 },
        })),
      );
    const turns = await session(loop().adapter).run("x", allowAll, { loop: { maxTurns: 2 } });
    expect(eventsOf(turns.messages, "limit_reached")[0]).toMatchObject({ limit: "max_turns", max: 2 });
    expect(turns.outcome).toEqual({ status: "aborted", message: "reached max turns (2); stopping" });
    expect(eventsOf(turns.messages, "request_begin")).toHaveLength(2);

    const tokens = await session(loop().adapter).run("x", allowAll, {
      loop: { budget: { maxTokens: 2500 } },
    });
    expect(eventsOf(tokens.messages, "limit_reached")[0]).toMatchObject({ limit: "tokens", used: 3000 });

    const cost = await session(loop().adapter).run("x", allowAll, {
      loop: { budget: { maxCostUsd: 0.01 }, prices: { input_per_mtok: 3, output_per_mtok: 15 } },
    });
    const usage = eventsOf(cost.messages, "token_usage")[0];
    expect(usage.request_cost_usd).toBeCloseTo((900 * 3 + 100 * 15) / 1e6);
    expect(eventsOf(cost.messages, "limit_reached")[0]).toMatchObject({ limit: "cost" });

    // The first request outlasts the budget for certain (50 ms against 10 ms), so the budget's timer
    // ends it, whatever the machine's load; a 1 ms budget could let a fast in-memory run finish first.
    const slow = testModel([
      { calls: [{ name: "echo", args: { text: "t" } }], delayMs: 50 },
      { text: "never" },
    ]);
    const wall = await session(slow.adapter).run("x", allowAll, { loop: { budget: { maxWallMs: 10 } } });
    expect(eventsOf(wall.messages, "limit_reached")[0]?.limit).toBe("wall_time");
    expect(slow.requests).toHaveLength(1);

    const window = testModel([{ text: "never sent" }]);
    const big = await session(window.adapter).run("y".repeat(4000), allowAll, {
      loop: { contextWindow: 500 },
    });
    expect(eventsOf(big.messages, "limit_reached")[0]).toMatchObject({ limit: "context_window", max: 500 });
    expect(window.requests).toHaveLength(0);
    expect(payloadTypes(big.messages).at(-1)).toBe("task_end");
  });

  it("deny-all and the guardrail answer every call with a denied output", async () => {
    const { adapter } = testModel([
      { calls: [{ name: "echo", args: { text: "x" }, id: "a" }] },
      { text: "ok" },
    ]);
    const run = await session(adapter).run("x", denyAll);
    expect(eventsOf(run.messages, "approval_decision")[0]).toMatchObject({
      decision: "deny",
      source: { kind: "mode", name: "deny-all" },
    });
    expect(run.messages.filter((m) => m.payload.type === "tool_call_output")).toHaveLength(1);
  });
});
