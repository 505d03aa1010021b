import {
  approvalDecision,
  assistantText,
  hookResult,
  type OmniMessage,
  requestBegin,
  requestEnd,
  subagentPointer,
  taskEnd,
  tokenUsage,
  toolCall,
  toolCallOutput,
  userText,
} from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import { observationsOf, sessionMetrics, TraceWriter } from "../src/index.js";
import { meta, tempLocation } from "./helpers.js";

// Metrics come from the trace the session writes: durations between the records' own timestamps.

const T0 = Date.parse("2026-03-01T10:00:00.000Z");
/** `message` stamped `ms` after T0. */
const at = (ms: number, message: OmniMessage): OmniMessage => ({
  ...message,
  timestamp: new Date(T0 + ms).toISOString(),
});
const usage = (total: number) => ({ cache_read: 0, cache_write: 0, output: 10, total });

/** One task: a request (retried once) that calls two tools, one failing and one waiting for approval, then an answer. */
function oneTask(id: string): OmniMessage[] {
  return [
    at(0, meta(id)),
    at(0, userText("Do it.")),
    at(10, requestBegin()),
    at(60, requestEnd("failed", { retry_in_ms: 100, attempt: 1 })),
    at(160, requestBegin(2)),
    at(410, requestEnd("completed")),
    at(411, tokenUsage(usage(1000), usage(1000), { request_cost_usd: 0.01 })),
    at(412, toolCall("read_file", { path: "a" }, "c1")),
    at(413, toolCall("exec_command", { cmd: "x" }, "c2")),
    at(414, approvalDecision("c1", "allow")),
    // c2 waited 5 s for a human: not its own time.
    at(5_413, approvalDecision("c2", "allow")),
    at(434, toolCallOutput("c1", "text")),
    at(
      5_413,
      hookResult({
        hook: "lint",
        phase: "before_tool",
        tool_call_id: "c2",
        tool_name: "exec_command",
        outcome: "exited",
        output: "",
        duration_ms: 40,
      }),
    ),
    at(7_413, toolCallOutput("c2", "boom", "failed")),
    at(7_500, requestBegin()),
    at(7_800, requestEnd("completed")),
    at(7_801, tokenUsage(usage(500), usage(1500))),
    at(7_802, assistantText("Done.")),
    at(7_803, taskEnd("completed")),
  ];
}

describe("observations of a trace", () => {
  it("times tools from approval to output, requests from first attempt to end, turns between requests", () => {
    const observations = observationsOf(oneTask("s1"));
    const byKind = (kind: string) => observations.filter((o) => o.kind === kind);
    expect(byKind("model")).toEqual([
      { kind: "model", name: "openai/gpt-test", durationMs: 400, error: false, tokens: 1000, costUsd: 0.01 },
      { kind: "model", name: "openai/gpt-test", durationMs: 300, error: false, tokens: 500 },
    ]);
    expect(byKind("tool")).toEqual([
      { kind: "tool", name: "read_file", durationMs: 20, error: false },
      { kind: "tool", name: "exec_command", durationMs: 2_000, error: true },
    ]);
    expect(byKind("hook")).toEqual([{ kind: "hook", name: "lint", durationMs: 40, error: false }]);
    expect(byKind("turn").map((o) => [o.name, o.durationMs])).toEqual([
      ["task 1 turn 1", 7_490],
      ["task 1 turn 2", 303],
    ]);
  });
});

describe("sessionMetrics", () => {
  it("summarises tools slowest first, with counts, quantiles and errors", () => {
    const loc = tempLocation();
    const writer = TraceWriter.create(loc, "s1");
    for (const record of oneTask("s1")) writer.append(record);
    writer.close();
    const tools = sessionMetrics(loc, "s1", "tools");
    expect(tools.map((row) => row.name)).toEqual(["exec_command", "read_file"]);
    expect(tools[0]).toMatchObject({
      count: 1,
      total_ms: 2_000,
      p50_ms: 2_000,
      p95_ms: 2_000,
      max_ms: 2_000,
      errors: 1,
    });
    const models = sessionMetrics(loc, "s1", "models");
    expect(models).toEqual([
      {
        name: "openai/gpt-test",
        count: 2,
        total_ms: 700,
        p50_ms: 300,
        p95_ms: 400,
        max_ms: 400,
        errors: 0,
        tokens: 1500,
        cost_usd: 0.01,
      },
    ]);
  });

  it("summarises a session's child agents and the agent's sessions", () => {
    const loc = tempLocation();
    const child = TraceWriter.create(loc, "child1");
    for (const record of oneTask("child1")) child.append(record);
    child.close();
    const parent = TraceWriter.create(loc, "parent");
    for (const record of oneTask("parent")) parent.append(record);
    parent.append(subagentPointer("child1", { subagent_id: "sub_1" }));
    parent.close();
    const agents = sessionMetrics(loc, "parent", "agents");
    expect(agents).toHaveLength(1);
    expect(agents[0]).toMatchObject({ name: "sub_1", count: 1, total_ms: 7_793, tokens: 1500 });
    const sessions = sessionMetrics(loc, "parent", "sessions");
    expect(sessions.map((row) => row.name).sort()).toEqual(["child1", "parent"]);
  });
});
