import { appendFileSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { assistantText, partialText, requestBegin, toolCall, userText, withOrigin } from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import { readSession, readTraceFile, TraceError, TraceWriter } from "../src/index.js";
import { meta, modeOf, tempLocation } from "./helpers.js";

describe("TraceWriter.create", () => {
  it("starts <tracesDir>/<yyyy-mm-dd>/<id>_001.jsonl in the UTC day of the session start", () => {
    const loc = tempLocation();
    const writer = TraceWriter.create(loc, "s1", { date: new Date("2026-03-04T23:30:00Z") });
    expect(writer.path).toBe(join(loc.tracesDir, "2026-03-04", "s1_001.jsonl"));
    expect(writer.fileIndex).toBe(1);
    writer.close();
  });

  it("creates trace files 0600 and their folders 0700", () => {
    const loc = tempLocation();
    const writer = TraceWriter.create(loc, "s1");
    writer.append(meta("s1"));
    writer.close();
    expect(modeOf(statSync(writer.path))).toBe(0o600);
    expect(modeOf(statSync(join(writer.path, "..")))).toBe(0o700);
    expect(modeOf(statSync(loc.tracesDir))).toBe(0o700);
  });

  it("refuses a session that already has a trace, even on another day", () => {
    const loc = tempLocation();
    TraceWriter.create(loc, "s1", { date: new Date("2026-01-01T00:00:00Z") }).close();
    expect(() => TraceWriter.create(loc, "s1", { date: new Date("2026-01-02T00:00:00Z") })).toThrow(
      expect.objectContaining({ code: "session_exists" }),
    );
  });

  it("rejects ids that could leave the traces folder", () => {
    const loc = tempLocation();
    for (const bad of ["", "..", "../x", "a/b", "a\\b", ".hidden", "a.b", "x".repeat(129)]) {
      expect(() => TraceWriter.create(loc, bad)).toThrow(TraceError);
      expect(() => TraceWriter.open(loc, bad)).toThrow(/invalid session id/);
    }
    expect(readdirSync(loc.root)).toEqual([]);
  });
});

describe("TraceWriter.append", () => {
  it("writes one JSON line per record, in order, that reads back equal", () => {
    const loc = tempLocation();
    const writer = TraceWriter.create(loc, "s1");
    const records = [meta("s1"), userText("hi\nthere"), requestBegin(), assistantText("hello")];
    for (const record of records) expect(writer.append(record)).toBe(true);
    writer.close();
    const lines = readFileSync(writer.path, "utf8").split("\n");
    expect(lines).toHaveLength(records.length + 1);
    expect(lines.at(-1)).toBe("");
    expect(lines.slice(0, -1).map((line) => JSON.parse(line))).toEqual(records);
    expect(readTraceFile(writer.path)).toEqual({ records, diagnostics: [] });
  });

  it("never writes partials or a child session's origin-tagged messages", () => {
    const loc = tempLocation();
    const writer = TraceWriter.create(loc, "s1");
    writer.append(meta("s1"));
    expect(writer.append(partialText("delta", "hel"))).toBe(false);
    expect(writer.append(withOrigin(assistantText("from child"), "child-1"))).toBe(false);
    expect(writer.append(assistantText("own"))).toBe(true);
    writer.close();
    const { records } = readTraceFile(writer.path);
    expect(records.map((r) => r.payload)).toEqual([
      expect.objectContaining({ session_id: "s1" }),
      assistantText("own").payload,
    ]);
  });

  it("requires session_meta of its own session as the first record of a file", () => {
    const loc = tempLocation();
    const writer = TraceWriter.create(loc, "s1");
    expect(() => writer.append(userText("too early"))).toThrow(/first record .* must be session_meta/);
    expect(() => writer.append(meta("other"))).toThrow(/session_meta for session other/);
    writer.append(meta("s1"));
    writer.close();
    expect(readTraceFile(writer.path).records).toHaveLength(1);
  });

  it("throws a clear error for an invalid envelope and writes nothing", () => {
    const loc = tempLocation();
    const writer = TraceWriter.create(loc, "s1");
    writer.append(meta("s1"));
    const bad = {
      ...toolCall("exec", "{}", "c1"),
      payload: { type: "tool_call", role: "assistant", name: "exec" },
    };
    expect(() => writer.append(bad as never)).toThrow(/not a valid trace record at payload\.arguments/);
    writer.close();
    expect(readTraceFile(writer.path).records).toHaveLength(1);
  });

  it("throws writer_closed after close rather than dropping the record", () => {
    const loc = tempLocation();
    const writer = TraceWriter.create(loc, "s1");
    writer.append(meta("s1"));
    writer.close();
    writer.close();
    expect(writer.closed).toBe(true);
    expect(() => writer.append(userText("late"))).toThrow(expect.objectContaining({ code: "writer_closed" }));
    expect(() => writer.rotate()).toThrow(expect.objectContaining({ code: "writer_closed" }));
  });

  it("calls onClose once, when the writer is closed (not on a rotate)", () => {
    const loc = tempLocation();
    let closes = 0;
    const writer = TraceWriter.create(loc, "s1", { onClose: () => closes++ });
    writer.append(meta("s1"));
    writer.rotate();
    expect(closes).toBe(0);
    writer.close();
    writer.close();
    expect(closes).toBe(1);
    const reopened = TraceWriter.open(loc, "s1", { onClose: () => closes++ });
    reopened.close();
    expect(closes).toBe(2);
  });

  it("with fsync on, writes the same lines", () => {
    const loc = tempLocation();
    const writer = TraceWriter.create(loc, "s1", { fsync: true });
    writer.append(meta("s1"));
    writer.append(userText("durable"));
    writer.close();
    expect(readTraceFile(writer.path).records).toHaveLength(2);
  });
});

describe("TraceWriter.open", () => {
  it("goes on appending to the highest-index file", () => {
    const loc = tempLocation();
    const first = TraceWriter.create(loc, "s1");
    first.append(meta("s1"));
    first.rotate();
    first.append(meta("s1"));
    first.close();
    const again = TraceWriter.open(loc, "s1");
    expect(again.path).toBe(first.path);
    expect(again.fileIndex).toBe(2);
    again.append(userText("after resume"));
    again.close();
    expect(readTraceFile(again.path).records.map((r) => r.type)).toEqual(["session_meta", "model_msg"]);
  });

  it("repairs a torn last line before the next append: the fragment becomes one skipped line", () => {
    const loc = tempLocation();
    const writer = TraceWriter.create(loc, "s1");
    writer.append(meta("s1"));
    writer.append(userText("kept"));
    writer.close();
    appendFileSync(writer.path, '{"timestamp":"2026-01-01T00:00:00Z","type":"model_msg","payload":{"ty');
    const torn = readTraceFile(writer.path);
    expect(torn.records).toHaveLength(2);
    expect(torn.diagnostics).toEqual([expect.objectContaining({ kind: "torn_last_line", line: 3 })]);

    const reopened = TraceWriter.open(loc, "s1");
    reopened.append(userText("after the crash"));
    reopened.append(userText("and one more"));
    reopened.close();
    const repaired = readTraceFile(writer.path);
    expect(repaired.records.map((r) => (r.payload as { text?: string }).text)).toEqual([
      undefined,
      "kept",
      "after the crash",
      "and one more",
    ]);
    expect(repaired.diagnostics).toEqual([expect.objectContaining({ kind: "malformed_line", line: 3 })]);
  });

  it("keeps a complete last record that only lacks its newline", () => {
    const loc = tempLocation();
    const writer = TraceWriter.create(loc, "s1");
    writer.append(meta("s1"));
    writer.close();
    appendFileSync(writer.path, JSON.stringify(userText("no newline")));
    const reopened = TraceWriter.open(loc, "s1");
    reopened.append(userText("next"));
    reopened.close();
    const { records, diagnostics } = readTraceFile(writer.path);
    expect(records.map((r) => (r.payload as { text?: string }).text)).toEqual([
      undefined,
      "no newline",
      "next",
    ]);
    expect(diagnostics).toEqual([]);
  });

  it("throws session_not_found for a session without a trace", () => {
    const loc = tempLocation();
    expect(() => TraceWriter.open(loc, "nobody")).toThrow(
      expect.objectContaining({ code: "session_not_found" }),
    );
  });
});

describe("TraceWriter.rotate", () => {
  it("starts <id>_<NNN+1>.jsonl in the same day folder, even on a later day", () => {
    const loc = tempLocation();
    const writer = TraceWriter.create(loc, "s1", { date: new Date("2025-12-31T12:00:00Z") });
    writer.append(meta("s1"));
    writer.append(userText("context one"));
    const second = writer.rotate();
    expect(second).toBe(join(loc.tracesDir, "2025-12-31", "s1_002.jsonl"));
    expect(writer.path).toBe(second);
    expect(() => writer.append(userText("no meta yet"))).toThrow(/must be session_meta/);
    writer.append(meta("s1"));
    writer.append(userText("context two"));
    expect(writer.rotate()).toBe(join(loc.tracesDir, "2025-12-31", "s1_003.jsonl"));
    writer.close();
    expect(modeOf(statSync(second))).toBe(0o600);
    const session = readSession(loc, "s1");
    expect(session.files.map((f) => f.slice(-12))).toEqual(["s1_001.jsonl", "s1_002.jsonl", "s1_003.jsonl"]);
    expect(session.records).toHaveLength(4);
  });

  it("refuses to overwrite a file that already exists", () => {
    const loc = tempLocation();
    const writer = TraceWriter.create(loc, "s1", { date: new Date("2025-12-31T12:00:00Z") });
    writer.append(meta("s1"));
    writeFileSync(join(loc.tracesDir, "2025-12-31", "s1_002.jsonl"), "precious\n");
    expect(() => writer.rotate()).toThrow(expect.objectContaining({ code: "session_exists" }));
    writer.append(userText("still writable"));
    writer.close();
    expect(readFileSync(join(loc.tracesDir, "2025-12-31", "s1_002.jsonl"), "utf8")).toBe("precious\n");
  });
});
