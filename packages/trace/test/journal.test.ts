import {
  activityResolved,
  approvalDecision,
  type OmniMessage,
  requestBegin,
  requestEnd,
  toolCall,
  toolCallOutput,
  toolDispatched,
  toolEffect,
  userText,
} from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import { rebuildContext, toolJournal, uncertainCalls } from "../src/index.js";
import { meta } from "./helpers.js";

const BEFORE = "a".repeat(64);
const AFTER = "b".repeat(64);

/** A call that was approved and dispatched; `more` follows its dispatch. */
function dispatchedCall(
  id: string,
  name: string,
  readOnly: boolean,
  more: OmniMessage[] = [],
): OmniMessage[] {
  return [
    toolCall(name, "{}", id),
    approvalDecision(id, "allow"),
    toolDispatched({ tool_call_id: id, name, read_only: readOnly }),
    ...more,
  ];
}

describe("toolJournal", () => {
  it("follows each call through intent, decision, dispatch, effect and result", () => {
    const records = [
      meta("s1"),
      ...dispatchedCall("c1", "write_file", false, [
        toolEffect({
          tool_call_id: "c1",
          files: [{ path: "/w/a.txt", before_sha256: null, after_sha256: AFTER }],
        }),
        toolCallOutput("c1", "wrote a.txt", "completed"),
      ]),
      toolCall("exec_command", '{"cmd":"rm -rf /"}', "c2"),
      approvalDecision("c2", "deny"),
      toolCallOutput("c2", "Tool call denied by user.", "aborted"),
      toolCall("write_file", "{}", "c3"),
      approvalDecision("c3", "allow"),
      toolCall("read_file", "{}", "c4"),
    ];
    const journal = toolJournal(records);
    expect(journal.map((entry) => [entry.toolCallId, entry.state, entry.uncertain])).toEqual([
      ["c1", "finished", false],
      ["c2", "denied", false],
      ["c3", "approved", false],
      ["c4", "requested", false],
    ]);
    expect(journal[0]?.files).toEqual([{ path: "/w/a.txt", before_sha256: null, after_sha256: AFTER }]);
    expect(journal[0]?.stopReason).toBe("completed");
  });

  it("calls a changing call dispatched without a result uncertain, and a read-only one not", () => {
    const records = [
      meta("s1"),
      ...dispatchedCall("w", "write_file", false, [
        toolEffect({
          tool_call_id: "w",
          files: [{ path: "/w/a", before_sha256: BEFORE, after_sha256: AFTER }],
        }),
      ]),
      ...dispatchedCall("r", "read_file", true),
      ...dispatchedCall("j", "run_command", false, [toolEffect({ tool_call_id: "j", process_id: "job_1" })]),
    ];
    expect(uncertainCalls(records).map((entry) => entry.toolCallId)).toEqual(["w", "j"]);
    expect(toolJournal(records).find((entry) => entry.toolCallId === "j")?.processId).toBe("job_1");
  });

  it("stops calling a call uncertain once a decision on it is recorded, and keeps the decision", () => {
    const records = [
      meta("s1"),
      ...dispatchedCall("w", "write_file", false),
      activityResolved({
        tool_call_id: "w",
        decision: "accept",
        evidence: "a.txt has the new hash",
        by: "agent",
      }),
    ];
    const [entry] = toolJournal(records);
    expect(entry?.uncertain).toBe(false);
    expect(entry?.resolution).toMatchObject({
      decision: "accept",
      evidence: "a.txt has the new hash",
      by: "agent",
    });
  });

  it("keeps the first output of a call and ignores records of calls it never saw", () => {
    const records = [
      meta("s1"),
      ...dispatchedCall("w", "write_file", false, [
        toolCallOutput("w", "first", "completed"),
        toolCallOutput("w", "second", "failed"),
      ]),
      toolCallOutput("ghost", "no call", "completed"),
      toolDispatched({ tool_call_id: "ghost2", name: "x" }),
    ];
    const journal = toolJournal(records);
    expect(journal).toHaveLength(1);
    expect(journal[0]?.stopReason).toBe("completed");
  });
});

describe("a resume of calls cut off while running", () => {
  it("answers a read-only call as one that changed nothing, and a changing call as one that may have", () => {
    const records = [
      meta("s1"),
      userText("Look and change."),
      requestBegin(),
      ...dispatchedCall("c_read", "read_file", true),
      ...dispatchedCall("c_write", "write_file", false),
      requestEnd("completed"),
    ];
    const outputs = rebuildContext(records)
      .messages.map((m) => m.payload)
      .filter((p) => p.type === "tool_call_output");
    expect(outputs.map((p) => [p.tool_call_id, p.output])).toEqual([
      ["c_read", expect.stringContaining("It only reads, so it changed nothing; call it again")],
      ["c_write", expect.stringContaining("it may have had partial effects")],
    ]);
    // Only the changing call is uncertain.
    expect(uncertainCalls(records).map((e) => e.toolCallId)).toEqual(["c_write"]);
  });
});
