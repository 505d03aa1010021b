import type { JournalEntry } from "@penguin/trace";
import { describe, expect, it } from "vitest";
import { type JournalAccess, type ResolutionFields, resolveActivity } from "../../src/tools/journal/index.js";

// The checks every decision on an uncertain call goes through (the agent's tool and session.resolve).

function entry(id: string, fields: Partial<JournalEntry>): JournalEntry {
  return {
    toolCallId: id,
    name: "write_file",
    arguments: "{}",
    requestedAt: new Date(0).toISOString(),
    state: "dispatched",
    readOnly: false,
    files: [],
    uncertain: true,
    ...fields,
  };
}

function access(entries: JournalEntry[], startedHere: string[] = []) {
  const recorded: ResolutionFields[] = [];
  const journal: JournalAccess = {
    journal: (sessionId) =>
      sessionId === "child_x"
        ? "Session child_x is not a child agent of this session."
        : { entries, startedHere: (id) => startedHere.includes(id) },
    record: (resolution) => {
      recorded.push(resolution);
    },
  };
  return { journal, recorded };
}

const ask = (
  toolCallId: string,
  extra: Partial<{ decision: string; evidence: string; sessionId: string }> = {},
) => ({
  toolCallId,
  decision: "accept",
  evidence: "checked the file",
  by: "agent" as const,
  ...extra,
});

describe("resolveActivity refuses what is not an uncertain call, and records nothing then", () => {
  const entries = [
    entry("c_done", { state: "finished", uncertain: false }),
    entry("c_denied", { state: "denied", uncertain: false }),
    entry("c_never", { state: "approved", uncertain: false }),
    entry("c_read", { name: "read_file", readOnly: true, uncertain: false }),
    entry("c_now", {}),
    entry("c_open", {}),
  ];

  it.each([
    ["c_done", "it finished and has its result."],
    ["c_denied", "it was refused, so it never ran."],
    ["c_never", "it never started, so it did not run."],
    ["c_read", "it only reads, so it changed nothing"],
    ["c_now", "it was started in this run of the session"],
  ])("%s: %s", async (id, why) => {
    const { journal, recorded } = access(entries, ["c_now"]);
    const outcome = await resolveActivity(journal, ask(id));
    expect(outcome).toMatchObject({ ok: false, message: expect.stringContaining(why) });
    expect(recorded).toEqual([]);
  });

  it("an unknown id (naming the uncertain ones), a bad decision, blank evidence, an unreadable session", async () => {
    const { journal, recorded } = access(entries, ["c_now"]);
    expect(await resolveActivity(journal, ask("c_x"))).toMatchObject({
      ok: false,
      message: "No tool call c_x in this session. The uncertain steps of this session: c_open (write_file).",
    });
    expect(await resolveActivity(journal, ask("c_open", { decision: "maybe" }))).toMatchObject({
      ok: false,
      message: 'decision must be retry or accept; got "maybe".',
    });
    expect(await resolveActivity(journal, ask("c_open", { evidence: " \n" }))).toMatchObject({ ok: false });
    expect(await resolveActivity(journal, ask("c_open", { sessionId: "child_x" }))).toMatchObject({
      ok: false,
      message: "Session child_x is not a child agent of this session.",
    });
    expect(recorded).toEqual([]);
  });

  it("records an open call's decision with Penguin's check; a later decision may replace it", async () => {
    const { journal, recorded } = access([entry("c_open", { resolution: undefined })]);
    const outcome = await resolveActivity(journal, ask("c_open", { evidence: "  looked at it  " }));
    expect(outcome.ok).toBe(true);
    expect(recorded).toEqual([
      {
        tool_call_id: "c_open",
        decision: "accept",
        evidence: "looked at it",
        by: "agent",
        verified: "unknown: no file change was journaled, so there is nothing to compare",
      },
    ]);
    const resolved = entry("c_open", {
      uncertain: false,
      resolution: { decision: "accept", evidence: "x", by: "agent", at: new Date(0).toISOString() },
    });
    const second = access([resolved]);
    expect((await resolveActivity(second.journal, ask("c_open", { decision: "retry" }))).ok).toBe(true);
    expect(second.recorded.map((r) => r.decision)).toEqual(["retry"]);
  });
});
