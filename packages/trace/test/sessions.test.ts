import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sessionMeta, userText } from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import { deleteSession, listSessions, TraceWriter } from "../src/index.js";
import { meta, tempLocation } from "./helpers.js";

function startSession(loc: ReturnType<typeof tempLocation>, id: string, created: string, extra = {}) {
  const writer = TraceWriter.create(loc, id, { date: new Date(created) });
  writer.append({ ...meta(id, extra), timestamp: created });
  writer.append(userText(`hello from ${id}`));
  return writer;
}

describe("listSessions", () => {
  it("lists sessions newest first with their model, workspace, files and size", () => {
    const loc = tempLocation();
    startSession(loc, "old", "2026-01-01T10:00:00.000Z").close();
    const rotated = startSession(loc, "new", "2026-02-01T10:00:00.000Z", { agent_id: "coder" });
    rotated.rotate();
    rotated.append(meta("new"));
    rotated.close();
    startSession(loc, "child", "2026-01-15T10:00:00.000Z", {
      source: "subagent",
      parent_session_id: "old",
      provider: "anthropic",
      model_id: "claude-test",
    }).close();

    const sessions = listSessions(loc);
    expect(sessions.map((s) => s.sessionId)).toEqual(["new", "child", "old"]);
    expect(sessions[0]).toMatchObject({
      created: "2026-02-01T10:00:00.000Z",
      provider: "openai",
      modelId: "gpt-test",
      workspace: "/work/space",
      agentId: "coder",
    });
    expect(sessions[0].files.map((f) => f.slice(-13))).toEqual(["new_001.jsonl", "new_002.jsonl"]);
    expect(sessions[0].bytes).toBeGreaterThan(200);
    expect(sessions[1]).toMatchObject({ source: "subagent", parentSessionId: "old", modelId: "claude-test" });
    expect(sessions[2].problem).toBeUndefined();
  });

  it("reads a session_meta with a long system prompt", () => {
    const loc = tempLocation();
    const writer = TraceWriter.create(loc, "long");
    writer.append(
      sessionMeta({
        session_id: "long",
        provider: "p",
        model_id: "m",
        system_prompt: "x".repeat(300_000),
        workspace: "/w",
      }),
    );
    writer.close();
    expect(listSessions(loc)[0]).toMatchObject({ sessionId: "long", modelId: "m" });
  });

  it("still lists a session whose first line is unreadable, with the problem", () => {
    const loc = tempLocation();
    const day = join(loc.tracesDir, "2026-01-01");
    mkdirSync(day, { recursive: true });
    writeFileSync(join(day, "broken_001.jsonl"), "{oops\n");
    writeFileSync(join(day, "notes.txt"), "not a trace");
    const [summary] = listSessions(loc);
    expect(summary.sessionId).toBe("broken");
    expect(summary.problem).toMatch(/first line is not a valid record/);
    expect(summary.created).toMatch(/^\d{4}-/);
  });

  it("returns nothing when there is no traces folder yet", () => {
    expect(listSessions(tempLocation())).toEqual([]);
  });
});

describe("deleteSession", () => {
  it("removes every trace file and the scratchpad, and only that session's", () => {
    const loc = tempLocation();
    const writer = startSession(loc, "doomed", "2026-03-01T00:00:00.000Z");
    writer.rotate();
    writer.append(meta("doomed"));
    writer.close();
    startSession(loc, "doomed2", "2026-03-01T00:00:00.000Z").close();
    const pad = join(loc.scratchpadRoot, "doomed", "truncated-tool-output");
    mkdirSync(pad, { recursive: true });
    writeFileSync(join(pad, "call_1.txt"), "secret output");
    mkdirSync(join(loc.scratchpadRoot, "doomed2"), { recursive: true });

    const result = deleteSession(loc, "doomed");
    expect(result.removedFiles.map((f) => f.slice(-16))).toEqual(["doomed_001.jsonl", "doomed_002.jsonl"]);
    expect(result.removedScratchpad).toBe(true);
    expect(existsSync(join(loc.scratchpadRoot, "doomed"))).toBe(false);
    expect(listSessions(loc).map((s) => s.sessionId)).toEqual(["doomed2"]);
    expect(existsSync(join(loc.scratchpadRoot, "doomed2"))).toBe(true);
  });

  it("removes a day folder it leaves empty, and is a no-op for a session that is gone", () => {
    const loc = tempLocation();
    startSession(loc, "only", "2026-03-02T00:00:00.000Z").close();
    deleteSession(loc, "only");
    expect(readdirSync(loc.tracesDir)).toEqual([]);
    expect(deleteSession(loc, "only")).toEqual({ removedFiles: [], removedScratchpad: false });
  });

  it("refuses an id that would reach outside the scratchpad root", () => {
    const loc = tempLocation();
    mkdirSync(join(loc.root, "keep"), { recursive: true });
    expect(() => deleteSession(loc, "../keep")).toThrow(
      expect.objectContaining({ code: "invalid_session_id" }),
    );
    expect(() => deleteSession(loc, "..")).toThrow(/invalid session id/);
    expect(existsSync(join(loc.root, "keep"))).toBe(true);
  });
});
