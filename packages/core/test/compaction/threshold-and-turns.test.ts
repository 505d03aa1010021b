import { assistantText, toolCall, toolCallOutput, userText } from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import { discardOldestTurns, splitTurns } from "../../src/engine/compaction/discard.js";
import { extractSummary } from "../../src/engine/compaction/summary.js";
import { compactionThreshold, dueCompaction } from "../../src/engine/compaction/threshold.js";
import type { ConversationState, ModelMessage } from "../../src/engine/types.js";

const settings = { max_context_length: 256_000, max_session_turns: -1, mode: "summarize" as const };
const state = (extra: Partial<ConversationState>): ConversationState => ({
  messages: [],
  sessionTokens: { cache_read: 0, cache_write: 0, output: 0, total: 0 },
  turns: 0,
  activeMs: 0,
  pendingNotes: [],
  ...extra,
});

describe("the compaction threshold", () => {
  it("is min(max_context_length, window − a reply margin), an unknown window counting as 128000", () => {
    // The margin: max_tokens, at most an eighth of the window, at least 2048.
    expect(compactionThreshold(256_000, 32_000, 32_000)).toBe(28_000);
    expect(compactionThreshold(256_000, 32_000, 1_000)).toBe(32_000 - 2_048);
    expect(compactionThreshold(256_000, undefined, 32_000)).toBe(128_000 - 16_000);
    expect(compactionThreshold(256_000, 1_000_000, 32_000)).toBe(256_000);
    expect(compactionThreshold(20_000, 200_000, undefined)).toBe(20_000);
  });

  it("triggers on the last request's total, on the context's turns, and not again right after a failure", () => {
    expect(dueCompaction(state({ lastRequestTotal: 27_999 }), settings, 28_000)).toBeUndefined();
    expect(dueCompaction(state({ lastRequestTotal: 28_000 }), settings, 28_000)).toBe("context");
    const byTurns = { ...settings, max_session_turns: 10 };
    expect(dueCompaction(state({ contextTurns: 9 }), byTurns, 28_000)).toBeUndefined();
    expect(dueCompaction(state({ contextTurns: 10 }), byTurns, 28_000)).toBe("turns");
    expect(
      dueCompaction(state({ contextTurns: 10, compactionDeferred: true }), byTurns, 28_000),
    ).toBeUndefined();
  });
});

describe("a summary", () => {
  it("is the text inside the first [summary] block; an empty, missing or unclosed block is no summary", () => {
    expect(extractSummary("Sure.\n[summary]\n Done: A.\n[/summary]\nmore")).toEqual({
      ok: true,
      summary: "Done: A.",
    });
    expect(extractSummary("[summary] \n [/summary]")).toMatchObject({ ok: false, problem: /empty/ });
    expect(extractSummary("no block")).toMatchObject({ ok: false, problem: /no \[summary\] block/ });
    expect(extractSummary("[summary]half")).toMatchObject({ ok: false, problem: /never closed/ });
  });
});

describe("discard's turns", () => {
  const m = (message: unknown) => message as ModelMessage;
  const context = [
    m(userText("task")),
    m(assistantText("a")),
    m(toolCall("exec_command", {}, "A")),
    m(toolCall("exec_command", {}, "B")),
    m(toolCallOutput("A", "x".repeat(400))),
    m(toolCallOutput("B", "y".repeat(400))),
    m(assistantText("b")),
    m(toolCall("exec_command", {}, "C")),
    m(toolCallOutput("C", "z")),
    m(assistantText("done")),
  ];

  it("are whole: a reply with the outputs of its calls", () => {
    expect(splitTurns(context).map((turn) => turn.length)).toEqual([1, 5, 3, 1]);
  });

  it("drop the oldest first, never the task's own message nor the last turn", () => {
    const size = (messages: readonly ModelMessage[]) => JSON.stringify(messages).length;
    const { kept, droppedTurns } = discardOldestTurns(context, new Set([context[0]!]), 0, size);
    expect(droppedTurns).toBe(2);
    expect(kept).toEqual([context[0], context[9]]);
  });
});
