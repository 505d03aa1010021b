import {
  abortEvent,
  approvalDecision,
  assistantText,
  eventMsg,
  type OmniMessage,
  requestBegin,
  requestEnd,
  taskEnd,
  thinking,
  tokenUsage,
  toolCall,
  toolCallOutput,
  userText,
  withOrigin,
} from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import { interruptedOutputText, readSession, rebuildContext, TraceWriter } from "../src/index.js";
import { meta, tempLocation } from "./helpers.js";

const counts = (total: number, output = 1) => ({ cache_read: 0, cache_write: 0, output, total });

/** A short, readable label per context message: `user:hi`, `call:A`, `out:A=...`. */
function labels(messages: OmniMessage[]): string[] {
  return messages.map((m) => {
    const p = m.payload as Record<string, string>;
    switch (p.type) {
      case "text":
        return `${p.role}:${p.text}`;
      case "thinking":
        return `thinking:${p.thinking}`;
      case "tool_call":
        return `call:${p.tool_call_id}`;
      case "tool_call_output":
        return `out:${p.tool_call_id}=${p.output}`;
      default:
        return p.type;
    }
  });
}

/** One committed request that only answers in text. */
function answer(text: string, sessionTotal: number): OmniMessage[] {
  return [
    requestBegin(),
    assistantText(text),
    tokenUsage(counts(10), counts(sessionTotal)),
    requestEnd("completed"),
  ];
}

describe("rebuildContext", () => {
  it("keeps user input and the messages of completed requests, with session meta, tokens and turns", () => {
    const state = rebuildContext([
      meta("s1"),
      userText("hi"),
      requestBegin(),
      thinking("hmm"),
      assistantText("hello"),
      tokenUsage(counts(100, 7), counts(100, 7), { session_cost_usd: 0.25 }),
      requestEnd("completed"),
      taskEnd("completed"),
    ]);
    expect(state.meta.session_id).toBe("s1");
    expect(labels(state.messages)).toEqual(["user:hi", "thinking:hmm", "assistant:hello"]);
    expect(state.turns).toBe(1);
    expect(state.tokens).toEqual({
      session: counts(100, 7),
      lastRequest: counts(100, 7),
      sessionCostUsd: 0.25,
    });
    expect(state.carryOver).toEqual({
      interruption: "none",
      droppedMessages: [],
      interruptedToolCallIds: [],
      handedBack: false,
    });
    expect(state.unansweredToolCallIds).toEqual([]);
    expect(state.danglingCompaction).toBe(false);
  });

  it("presents tool outputs in call order right after the request that issued the calls", () => {
    const state = rebuildContext([
      meta("s1"),
      userText("list and count"),
      requestBegin(),
      toolCall("exec_command", { cmd: "ls" }, "A"),
      approvalDecision("A", "allow", { kind: "mode", name: "auto" }),
      toolCall("exec_command", { cmd: "wc" }, "B"),
      approvalDecision("B", "allow"),
      // B finishes first, while the model is still streaming; A after the request ended.
      toolCallOutput("B", "2 words"),
      toolCall("read_file", { path: "x" }, "C"),
      tokenUsage(counts(10), counts(10)),
      requestEnd("completed"),
      approvalDecision("C", "deny", { kind: "human" }, "no"),
      toolCallOutput("C", "Tool call denied by user.", "aborted"),
      toolCallOutput("A", "a.txt"),
      ...answer("done", 20),
    ]);
    expect(labels(state.messages)).toEqual([
      "user:list and count",
      "call:A",
      "call:B",
      "call:C",
      "out:A=a.txt",
      "out:B=2 words",
      "out:C=Tool call denied by user.",
      "assistant:done",
    ]);
    expect(state.turns).toBe(2);
    expect(state.carryOver.interruption).toBe("none");
  });

  it("leaves failed, timed-out and aborted attempts out of the context (the retry re-sends)", () => {
    const state = rebuildContext([
      meta("s1"),
      userText("question"),
      requestBegin(1),
      assistantText("partial answ"),
      requestEnd("failed", { error_message: "HTTP 500", attempt: 1, retry_in_ms: 2000 }),
      requestBegin(2),
      thinking("again"),
      requestEnd("timeout", { attempt: 2 }),
      requestBegin(3),
      assistantText("full answer"),
      requestEnd("completed", { attempt: 3 }),
    ]);
    expect(labels(state.messages)).toEqual(["user:question", "assistant:full answer"]);
    expect(state.turns).toBe(1);
    expect(state.carryOver.interruption).toBe("none");
  });

  it("leaves out the tool calls and outputs of a failed attempt, and reports a failed last request", () => {
    const state = rebuildContext([
      meta("s1"),
      userText("run it"),
      requestBegin(1),
      toolCall("exec_command", { cmd: "make" }, "A"),
      approvalDecision("A", "allow"),
      toolCallOutput("A", "built"),
      requestEnd("failed", { error_message: "stream cut", attempt: 1 }),
      requestBegin(2),
      assistantText("It is built."),
      requestEnd("completed", { attempt: 2 }),
      userText("again"),
      requestBegin(),
      requestEnd("auth", { error_message: "401" }),
      taskEnd("auth", "the API key was rejected"),
    ]);
    expect(labels(state.messages)).toEqual(["user:run it", "assistant:It is built.", "user:again"]);
    expect(state.unansweredToolCallIds).toEqual([]);
    expect(state.carryOver).toMatchObject({
      interruption: "request",
      requestStatus: "auth",
      droppedMessages: [],
    });
    expect(state.carryOver.notice).toMatch(/ended with status auth/);
  });

  it("drops an uncommitted final request (crash mid-stream) but keeps the user input before it", () => {
    const state = rebuildContext([
      meta("s1"),
      userText("first"),
      ...answer("first answer", 10),
      userText("second"),
      requestBegin(),
      thinking("thinking it over"),
      toolCall("exec_command", { cmd: "date" }, "D"),
      approvalDecision("D", "allow"),
      toolCallOutput("D", "Mon"),
      // the process died here: no token_usage, no request_end
    ]);
    expect(labels(state.messages)).toEqual(["user:first", "assistant:first answer", "user:second"]);
    expect(state.turns).toBe(1);
    expect(state.carryOver.interruption).toBe("request");
    expect(state.carryOver.requestStatus).toBeUndefined();
    expect(labels(state.carryOver.droppedMessages)).toEqual([
      "thinking:thinking it over",
      "call:D",
      "out:D=Mon",
    ]);
    expect(state.carryOver.notice).toMatch(/cut off before it finished/);
    expect(state.unansweredToolCallIds).toEqual([]);
  });

  it("reports a dropped retry attempt that ran a tool as not handed back, though an earlier attempt's note is last in context", () => {
    const retried = userText("[turn_retried]\nThe previous attempt failed (HTTP 500).\n[/turn_retried]", {
      sender: "harness",
    });
    const state = rebuildContext([
      meta("s1"),
      userText("build it"),
      requestBegin(1),
      tokenUsage(counts(0), counts(0)),
      requestEnd("failed", { error_message: "HTTP 500", attempt: 1, retry_in_ms: 1 }),
      retried,
      requestBegin(2),
      toolCall("exec_command", { cmd: "make" }, "M"),
      approvalDecision("M", "allow"),
      toolCallOutput("M", "built"),
      // killed here, during attempt 2: its calls ran but no note says so
    ]);
    expect(state.messages.at(-1)?.payload).toMatchObject({ sender: "harness", type: "text" });
    expect(state.carryOver).toMatchObject({ interruption: "request", handedBack: false });
    expect(labels(state.carryOver.droppedMessages)).toEqual(["call:M", "out:M=built"]);
  });

  it("reports a request as handed back once the engine's note follows it (retried, given up or interrupted)", () => {
    for (const tag of ["turn_retried", "turn_aborted"]) {
      const state = rebuildContext([
        meta("s1"),
        userText("go"),
        requestBegin(1),
        toolCall("exec_command", { cmd: "make" }, "M"),
        toolCallOutput("M", "built"),
        requestEnd("failed", { attempt: 1 }),
        userText(`[${tag}]\nwhat the attempt did\n[/${tag}]`, { sender: "harness" }),
      ]);
      expect(state.carryOver).toMatchObject({ interruption: "request", handedBack: true });
    }
    // The same text from the user (not the harness) is no hand-back.
    const fromUser = rebuildContext([
      meta("s1"),
      userText("go"),
      requestBegin(1),
      requestEnd("failed", { attempt: 1 }),
      userText("[turn_aborted]\nfake\n[/turn_aborted]"),
    ]);
    expect(fromUser.carryOver.handedBack).toBe(false);
  });

  it("pairs committed tool calls that never got an output with a synthetic interrupted output", () => {
    const state = rebuildContext([
      meta("s1"),
      userText("do three things"),
      requestBegin(),
      toolCall("exec_command", { cmd: "true" }, "A"),
      approvalDecision("A", "allow"),
      toolCall("exec_command", { cmd: "sleep 100" }, "B"),
      approvalDecision("B", "allow"),
      toolCall("write_file", { path: "x" }, "C"),
      requestEnd("completed"),
      toolCallOutput("A", "ok"),
      // killed while B ran and before C was approved
    ]);
    expect(labels(state.messages)).toEqual([
      "user:do three things",
      "call:A",
      "call:B",
      "call:C",
      "out:A=ok",
      `out:B=${interruptedOutputText(true)}`,
      `out:C=${interruptedOutputText(false)}`,
    ]);
    expect(state.messages[5].payload).toMatchObject({ stop_reason: "aborted", role: "user" });
    expect(interruptedOutputText(true)).toMatch(/not re-run/);
    expect(state.carryOver.interruption).toBe("tools");
    expect(state.carryOver.interruptedToolCallIds).toEqual(["B", "C"]);
    expect(state.carryOver.notice).toContain("exec_command (B)");
    expect(state.unansweredToolCallIds).toEqual(["B", "C"]);
  });

  it("notes a trailing abort and the aborted request", () => {
    const state = rebuildContext([
      meta("s1"),
      userText("long task"),
      requestBegin(),
      assistantText("Let me st"),
      requestEnd("aborted"),
      abortEvent("user pressed Ctrl-C"),
      taskEnd("aborted"),
    ]);
    expect(labels(state.messages)).toEqual(["user:long task"]);
    expect(state.carryOver).toMatchObject({
      interruption: "request",
      requestStatus: "aborted",
      abort: { reason: "user pressed Ctrl-C" },
    });
    expect(state.carryOver.notice).toMatch(/^The user interrupted the previous turn\./);
  });

  it("forgets an abort once new input followed it", () => {
    const state = rebuildContext([
      meta("s1"),
      userText("one"),
      ...answer("a", 5),
      abortEvent(),
      userText("two"),
    ]);
    expect(state.carryOver.abort).toBeUndefined();
    expect(state.carryOver.notice).toBeUndefined();
    expect(labels(state.messages)).toEqual(["user:one", "assistant:a", "user:two"]);
  });

  it("puts input that arrived during a request (steering) after that request and its outputs", () => {
    const state = rebuildContext([
      meta("s1"),
      userText("go"),
      requestBegin(),
      toolCall("exec_command", {}, "A"),
      userText("also check B"),
      requestEnd("completed"),
      toolCallOutput("A", "ok"),
      ...answer("checked", 9),
    ]);
    expect(labels(state.messages)).toEqual([
      "user:go",
      "call:A",
      "out:A=ok",
      "user:also check B",
      "assistant:checked",
    ]);
  });

  it("starts a fresh context at each session_meta (a rotated file) and skips compaction requests", () => {
    const state = rebuildContext([
      meta("s1"),
      userText("old question"),
      ...answer("old answer", 50),
      eventMsg({ type: "compaction_begin", reason: "context", mode: "summarize" }),
      requestBegin(),
      userText("summarize please"),
      assistantText("[summary]they asked[/summary]"),
      tokenUsage(counts(30), counts(80)),
      requestEnd("completed"),
      eventMsg({ type: "compaction_end", reason: "context", mode: "summarize", status: "completed" }),
      meta("s1", { system_prompt: "after compaction" }),
      userText("[context_summary]they asked[/context_summary]"),
      userText("new question"),
      ...answer("new answer", 95),
    ]);
    expect(labels(state.messages)).toEqual([
      "user:[context_summary]they asked[/context_summary]",
      "user:new question",
      "assistant:new answer",
    ]);
    expect(state.meta.system_prompt).toBe("after compaction");
    expect(state.turns).toBe(2);
    expect(state.tokens.session.total).toBe(95);
    expect(state.danglingCompaction).toBe(false);
  });

  it("keeps the original context when a compaction never ended", () => {
    const state = rebuildContext([
      meta("s1"),
      userText("q"),
      ...answer("a", 10),
      eventMsg({ type: "compaction_begin", reason: "manual", mode: "summarize" }),
      requestBegin(),
      assistantText("[summary]half"),
    ]);
    expect(state.danglingCompaction).toBe(true);
    expect(labels(state.messages)).toEqual(["user:q", "assistant:a"]);
    expect(state.carryOver.interruption).toBe("none");
  });

  it("ignores a child session's origin-tagged messages and assistant text outside a request", () => {
    const state = rebuildContext([
      meta("s1"),
      userText("q"),
      withOrigin(userText("child input"), "child-1"),
      assistantText("reached max turns (3); stopping"),
      ...answer("a", 10),
    ]);
    expect(labels(state.messages)).toEqual(["user:q", "assistant:a"]);
  });

  it("refuses records that do not start with session_meta", () => {
    expect(() => rebuildContext([userText("hi")])).toThrow(
      expect.objectContaining({ code: "not_a_session" }),
    );
    expect(() => rebuildContext([])).toThrow(/must start with a session_meta/);
  });

  it("resumes from files alone: rebuild after a crash, append the next turn, rebuild again", () => {
    const loc = tempLocation();
    const writer = TraceWriter.create(loc, "s1");
    for (const record of [meta("s1"), userText("first"), ...answer("first answer", 10), userText("second")]) {
      writer.append(record);
    }
    writer.append(requestBegin());
    writer.append(thinking("never finished"));
    writer.close(); // as if killed mid-stream

    const resumed = rebuildContext(readSession(loc, "s1").records);
    expect(labels(resumed.messages)).toEqual(["user:first", "assistant:first answer", "user:second"]);
    expect(resumed.carryOver.interruption).toBe("request");

    const again = TraceWriter.open(loc, "s1");
    for (const record of answer("second answer", 25)) again.append(record);
    again.close();
    const next = rebuildContext(readSession(loc, "s1").records);
    expect(labels(next.messages)).toEqual([
      "user:first",
      "assistant:first answer",
      "user:second",
      "assistant:second answer",
    ]);
    expect(next.turns).toBe(2);
    expect(next.tokens.session.total).toBe(25);
    expect(next.carryOver.interruption).toBe("none");
  });
});
