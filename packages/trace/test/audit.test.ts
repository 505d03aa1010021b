import {
  approvalDecision,
  requestBegin,
  toolCall,
  toolCallOutput,
  userText,
  withOrigin,
} from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import { approvalAudit, readSession, TraceWriter } from "../src/index.js";
import { meta, tempLocation } from "./helpers.js";

describe("approvalAudit", () => {
  it("lists every approval decision in order with its tool call, source, reason and outcome", () => {
    const loc = tempLocation();
    const writer = TraceWriter.create(loc, "s1");
    const records = [
      meta("s1"),
      userText("clean up"),
      requestBegin(),
      toolCall("exec_command", { cmd: "ls" }, "A"),
      approvalDecision("A", "allow", { kind: "mode", name: "auto-edit" }),
      toolCall("exec_command", { cmd: "rm -rf /" }, "B"),
      approvalDecision("B", "forbidden", { kind: "guardrail", name: "rm-root" }, "deletes the root folder"),
      toolCallOutput("B", "Forbidden.", "aborted"),
      toolCallOutput("A", "a.txt"),
      withOrigin(approvalDecision("C", "deny", { kind: "human" }, "not now"), "child-1"),
    ];
    for (const record of records) writer.append(record);
    writer.close();
    // The origin-tagged decision is not written to the parent trace; audit it from the records.
    const fromTrace = approvalAudit(readSession(loc, "s1").records);
    expect(fromTrace).toEqual([
      {
        timestamp: records[4].timestamp,
        toolCallId: "A",
        decision: "allow",
        source: { kind: "mode", name: "auto-edit" },
        toolName: "exec_command",
        arguments: '{"cmd":"ls"}',
        outcome: "completed",
      },
      {
        timestamp: records[6].timestamp,
        toolCallId: "B",
        decision: "forbidden",
        source: { kind: "guardrail", name: "rm-root" },
        reason: "deletes the root folder",
        toolName: "exec_command",
        arguments: '{"cmd":"rm -rf /"}',
        outcome: "aborted",
      },
    ]);
    const live = approvalAudit(records);
    expect(live).toHaveLength(3);
    expect(live[2]).toEqual({
      timestamp: records[9].timestamp,
      toolCallId: "C",
      decision: "deny",
      source: { kind: "human" },
      reason: "not now",
      origin: ["child-1"],
    });
  });

  it("returns nothing for a session without decisions", () => {
    expect(approvalAudit([meta("s1"), userText("hi")])).toEqual([]);
  });
});
