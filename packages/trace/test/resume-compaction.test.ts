import {
  assistantText,
  eventMsg,
  type OmniMessage,
  requestBegin,
  requestEnd,
  tokenUsage,
  toolCall,
  toolCallOutput,
  toolListReady,
  userText,
} from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import { rebuildContext } from "../src/index.js";
import { meta } from "./helpers.js";

const counts = (total: number) => ({ cache_read: 0, cache_write: 0, output: 1, total });
const labels = (messages: OmniMessage[]) =>
  messages.map((m) => {
    const p = m.payload as Record<string, string>;
    if (p.type === "text") return `${p.role}:${p.text}`;
    if (p.type === "tool_call") return `call:${p.tool_call_id}`;
    if (p.type === "tool_call_output") return `out:${p.tool_call_id}`;
    return p.type;
  });
const answer = (text: string) => [
  requestBegin(),
  assistantText(text),
  tokenUsage(counts(10), counts(10)),
  requestEnd("completed"),
];
const begin = eventMsg({ type: "compaction_begin", reason: "context", mode: "discard" });
const end = (status: "completed" | "failed") =>
  eventMsg({ type: "compaction_end", reason: "context", mode: "discard", status });

/** The old file up to the point where the compaction's new file starts. */
const beforeRotation = [
  meta("s1"),
  userText("first"),
  ...answer("one"),
  userText("second"),
  ...answer("two"),
  begin,
  meta("s1"),
  toolListReady([]),
];

describe("rebuildContext across a compaction's new file", () => {
  it("takes the new file's seed as the context, kept assistant turns and tool calls included", () => {
    const state = rebuildContext([
      ...beforeRotation,
      userText("[context_summary]\n1 earlier turn was dropped\n[/context_summary]", { sender: "harness" }),
      assistantText("two"),
      toolCall("exec_command", {}, "A"),
      toolCallOutput("A", "ok"),
      end("completed"),
      userText("third"),
      ...answer("three"),
    ]);
    expect(labels(state.messages)).toEqual([
      "user:[context_summary]\n1 earlier turn was dropped\n[/context_summary]",
      "assistant:two",
      "call:A",
      "out:A",
      "user:third",
      "assistant:three",
    ]);
    expect(state.turns).toBe(3);
    expect(state.contextTurns).toBe(1);
    expect(state.danglingCompaction).toBe(false);
    expect(state.openCompaction).toBeUndefined();
  });

  it("keeps the context from before the compaction when the process died while the new file was written", () => {
    const state = rebuildContext([
      ...beforeRotation,
      userText("[context_summary]\nhalf", { sender: "harness" }),
    ]);
    expect(labels(state.messages)).toEqual(["user:first", "assistant:one", "user:second", "assistant:two"]);
    expect(state.danglingCompaction).toBe(true);
    expect(state.openCompaction).toEqual({ reason: "context", mode: "discard" });
    expect(state.contextTurns).toBe(2);
  });

  it("goes on with the context from before once that compaction was closed as failed", () => {
    const state = rebuildContext([
      ...beforeRotation,
      userText("[context_summary]\nhalf", { sender: "harness" }),
      end("failed"),
      userText("third"),
      ...answer("three"),
    ]);
    expect(labels(state.messages)).toEqual([
      "user:first",
      "assistant:one",
      "user:second",
      "assistant:two",
      "user:third",
      "assistant:three",
    ]);
    expect(state.danglingCompaction).toBe(false);
    expect(state.contextTurns).toBe(3);
  });

  it("reports the reason and mode of a compaction that never ended in its own file", () => {
    const state = rebuildContext([meta("s1"), userText("q"), ...answer("a"), begin, requestBegin()]);
    expect(state.openCompaction).toEqual({ reason: "context", mode: "discard" });
    expect(labels(state.messages)).toEqual(["user:q", "assistant:a"]);
  });
});
