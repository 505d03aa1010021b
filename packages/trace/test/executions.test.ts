import {
  activityResolved,
  agentLaunched,
  assistantText,
  eventMsg,
  messageSent,
  type OmniMessage,
  requestBegin,
  requestEnd,
  subagentPointer,
  taskEnd,
  toolCall,
  toolDispatched,
  userText,
  withOrigin,
} from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import {
  type AgentRecords,
  executionItems,
  listExecutions,
  pageItems,
  readSession,
  sessionAgents,
  TraceWriter,
  taskSpans,
} from "../src/index.js";
import { meta, tempLocation } from "./helpers.js";

// Records with timestamps one second apart from `start`, so the tests can place "now" between them.
function timed(start: string, records: OmniMessage[]): OmniMessage[] {
  const t0 = Date.parse(start);
  return records.map((record, i) => ({ ...record, timestamp: new Date(t0 + i * 1000).toISOString() }));
}

const root = (records: OmniMessage[]): AgentRecords => ({
  agentRunId: "root",
  sessionId: "s1",
  depth: 0,
  records,
});

describe("executions read from traces", () => {
  it("splits tasks at their prompts and ends: a task cut off by a crash is interrupted, the next one goes on", () => {
    const records = timed("2026-01-01T00:00:00.000Z", [
      meta("s1"),
      userText("first task"),
      requestBegin(),
      assistantText("done one"),
      requestEnd("completed"),
      taskEnd("completed"),
      userText("second task"),
      requestBegin(),
      toolCall("write_file", { file_path: "a.txt", content: "x" }, "c1"),
      toolDispatched({ tool_call_id: "c1", name: "write_file", read_only: false }),
      // The process died here; the resumed session's next task:
      userText("[turn_aborted]\nnotes", { sender: "harness" }),
      userText("third task"),
      requestBegin(),
      userText("[user_steering]\nfaster\n[/user_steering]", { sender: "user" }),
    ]);
    expect(taskSpans(records).map((span) => [span.number, span.prompt, span.status])).toEqual([
      [1, "first task", "completed"],
      [2, "second task", undefined],
      [3, "third task", undefined],
    ]);
    // Read by a process that took the session over after the third task started: it runs here.
    const executions = listExecutions([root(records)], { liveSince: "2026-01-01T00:00:11.500Z" });
    expect(executions.map((e) => [e.id, e.state, e.resumable, e.uncertainCalls])).toEqual([
      ["root/1", "completed", false, 0],
      ["root/2", "interrupted", false, 1],
      ["root/3", "interrupted", true, 0],
    ]);
    // Taken over before the third task: that task runs in the reading process.
    const live = listExecutions([root(records)], { liveSince: "2026-01-01T00:00:10.000Z" });
    expect(live.at(-1)?.state).toBe("running");
  });

  it("finds executions by text, state and agent, and reads a part page by page", () => {
    const child: AgentRecords = {
      agentRunId: "sub_1",
      sessionId: "s2",
      depth: 1,
      parent: "root",
      agent: "helper",
      records: timed("2026-01-01T00:00:00.000Z", [
        meta("s2"),
        userText("look for the needle", { sender: "parent_agent" }),
        taskEnd("aborted", "stopped"),
      ]),
    };
    const rootAgent = root(
      timed("2026-01-01T00:00:00.000Z", [
        meta("s1"),
        userText("launch it"),
        // The child's prompt relayed into the root's trace belongs to the child's execution.
        withOrigin(userText("look for the needle", { sender: "parent_agent" }), "s2"),
        messageSent({
          message_id: "msg_1",
          from: "root",
          to: "sub_1",
          text: "hello",
          sent_at: "2026-01-01T00:00:01.000Z",
          tool_call_id: "c9",
        }),
        taskEnd("failed"),
      ]),
    );
    const agents = [rootAgent, child];
    const options = { liveSince: "2026-01-02T00:00:00.000Z" };
    expect(listExecutions(agents, options, { text: "NEEDLE" }).map((e) => e.id)).toEqual(["sub_1/1"]);
    expect(listExecutions(agents, options, { state: "failed" }).map((e) => e.id)).toEqual(["root/1"]);
    const [paused] = listExecutions(agents, options, { agent: "helper" });
    expect(paused).toMatchObject({ state: "paused", resumable: true, message: "stopped", parent: "root" });
    const inbox = executionItems(paused!, "inbox", agents);
    expect(inbox).toEqual([expect.objectContaining({ kind: "pending", text: "[msg_1] from root: hello" })]);
    const many = Array.from({ length: 30 }, (_, i) => i);
    expect(pageItems(many, 2, 25)).toEqual({ items: [25, 26, 27, 28, 29], page: 2, pages: 2 });
  });

  it("keeps a task whole across a compaction, whose new trace file repeats the task's prompt", () => {
    const records = [
      meta("s1"),
      userText("long task"),
      requestBegin(),
      requestEnd("completed"),
      eventMsg({ type: "compaction_begin", reason: "context", mode: "summarize" }),
      meta("s1"),
      userText("[context_summary]\nso far\n[/context_summary]", { sender: "harness" }),
      userText("long task"),
      eventMsg({ type: "compaction_end", reason: "context", mode: "summarize", status: "completed" }),
      requestBegin(),
      requestEnd("completed"),
      taskEnd("completed"),
    ];
    expect(taskSpans(records).map((span) => [span.number, span.from, span.to, span.status])).toEqual([
      [1, 1, records.length, "completed"],
    ]);
  });

  it("counts a call resolved after the crash as no longer uncertain, and shows the decision", () => {
    const records = timed("2026-01-01T00:00:00.000Z", [
      meta("s1"),
      userText("write it"),
      requestBegin(),
      toolCall("write_file", { file_path: "a.txt", content: "x" }, "c1"),
      toolDispatched({ tool_call_id: "c1", name: "write_file", read_only: false }),
      toolCall("read_file", { file_path: "b.txt" }, "c2"),
      toolDispatched({ tool_call_id: "c2", name: "read_file", read_only: true }),
      // The process died; the resumed session's user decided on the write, in a later task.
      userText("go on"),
      activityResolved({ tool_call_id: "c1", decision: "accept", evidence: "a.txt holds x", by: "user" }),
    ]);
    const options = { liveSince: "2026-01-02T00:00:00.000Z" };
    const [first] = listExecutions([root(records)], options);
    expect(first).toMatchObject({ id: "root/1", toolCalls: 2, uncertainCalls: 0 });
    const activities = executionItems(first!, "activities", [root(records)]);
    expect(activities.find((item) => item.text.startsWith("write_file (c1)"))?.text).toContain(
      "resolved accept by user: a.txt holds x",
    );
    // Before the decision the write was uncertain; the read-only call never is.
    const [before] = listExecutions([root(records.slice(0, -1))], options);
    expect(before).toMatchObject({ toolCalls: 2, uncertainCalls: 1 });
  });
});

describe("an execution's activities", () => {
  it("lists each model request with its attempt and end, a long error cut to the item bound", () => {
    const records = timed("2026-01-01T00:00:00.000Z", [
      meta("s1"),
      userText("try"),
      requestBegin(),
      requestEnd("failed", { error_message: "x".repeat(2_000) }),
      requestBegin(2),
      requestEnd("completed"),
      requestBegin(),
    ]);
    const [execution] = listExecutions([root(records)], { liveSince: "2026-01-02T00:00:00.000Z" });
    const texts = executionItems(execution!, "activities", [root(records)]).map((item) => item.text);
    expect(texts[0]).toMatch(/^request 1: failed \(x+ \[… \d+ more characters\]$/);
    expect(texts[0]!.length).toBeLessThan(700);
    expect(texts.slice(1)).toEqual([
      "request 2 attempt 2: completed",
      "request 3: no end recorded (cut off)",
    ]);
  });
});

describe("sessionAgents", () => {
  it("gives every agent of the tree with its place and its whole trace, leaving out a child whose trace is gone", () => {
    const loc = tempLocation();
    const write = (id: string, records: OmniMessage[]) => {
      const writer = TraceWriter.create(loc, id);
      writer.append(meta(id));
      for (const record of records) writer.append(record);
      writer.close();
    };
    const launch = (run: string, parent: string, sessionId: string, depth: number, agent?: string) => [
      subagentPointer(sessionId, { subagent_id: run }),
      agentLaunched({
        agent_run_id: run,
        parent,
        session_id: sessionId,
        depth,
        task: "t",
        ...(agent ? { agent } : {}),
      }),
    ];
    write("s-root", [
      userText("go"),
      ...launch("sub_1", "root", "s-kid", 1, "helper"),
      ...launch("sub_2", "root", "s-gone", 1),
    ]);
    write("s-kid", [userText("t", { sender: "parent_agent" }), ...launch("sub_3", "sub_1", "s-grand", 2)]);
    write("s-grand", [userText("t", { sender: "parent_agent" }), taskEnd("completed")]);
    const agents = sessionAgents(loc, "s-root");
    expect(agents.map(({ records: _, ...place }) => place)).toEqual([
      { agentRunId: "root", sessionId: "s-root", depth: 0 },
      { agentRunId: "sub_1", sessionId: "s-kid", depth: 1, parent: "root", agent: "helper" },
      { agentRunId: "sub_3", sessionId: "s-grand", depth: 2, parent: "sub_1" },
    ]);
    for (const agent of agents) expect(agent.records).toEqual(readSession(loc, agent.sessionId).records);
  });
});
