import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { assistantText, userText } from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import {
  findSessionFiles,
  iterateSession,
  readSession,
  readTraceFile,
  type TraceDiagnostic,
  TraceWriter,
} from "../src/index.js";
import { meta, tempLocation, tempRoot } from "./helpers.js";

const line = (value: unknown) => `${JSON.stringify(value)}\n`;

describe("readTraceFile", () => {
  it("skips a malformed line in the middle with a diagnostic naming the line, and keeps going", () => {
    const file = join(tempRoot(), "t.jsonl");
    writeFileSync(
      file,
      line(meta("s1")) +
        "{not json\n" +
        line({ timestamp: "t", type: "model_msg", payload: { type: "tool_call", role: "assistant" } }) +
        "\n" +
        line(userText("still read")),
    );
    const { records, diagnostics } = readTraceFile(file);
    expect(records.map((r) => r.type)).toEqual(["session_meta", "model_msg"]);
    expect(diagnostics).toEqual([
      expect.objectContaining({
        path: file,
        line: 2,
        kind: "malformed_line",
        message: expect.stringMatching(/not valid JSON/),
      }),
      expect.objectContaining({
        line: 3,
        kind: "malformed_line",
        message: expect.stringMatching(/payload\.name/),
      }),
    ]);
  });

  it("quotes at most a short excerpt of a huge bad line", () => {
    const file = join(tempRoot(), "t.jsonl");
    writeFileSync(file, `${"x".repeat(100_000)}\n`);
    const [diagnostic] = readTraceFile(file).diagnostics;
    expect(diagnostic.message.length).toBeLessThan(400);
    expect(diagnostic.message).toContain("100000 chars");
  });

  it("tolerates a torn last line and a last record without its newline", () => {
    const root = tempRoot();
    const torn = join(root, "torn.jsonl");
    writeFileSync(torn, line(meta("s1")) + line(userText("a")).slice(0, 30));
    expect(readTraceFile(torn).records).toHaveLength(1);
    expect(readTraceFile(torn).diagnostics.map((d: TraceDiagnostic) => [d.line, d.kind])).toEqual([
      [2, "torn_last_line"],
    ]);

    const unterminated = join(root, "unterminated.jsonl");
    writeFileSync(unterminated, line(meta("s1")) + JSON.stringify(userText("whole")));
    expect(readTraceFile(unterminated).records).toHaveLength(2);
    expect(readTraceFile(unterminated).diagnostics.map((d) => d.kind)).toEqual(["missing_newline"]);
  });

  it("reads an empty file as no records, and throws for a file that does not exist", () => {
    const root = tempRoot();
    writeFileSync(join(root, "empty.jsonl"), "");
    expect(readTraceFile(join(root, "empty.jsonl"))).toEqual({ records: [], diagnostics: [] });
    expect(() => readTraceFile(join(root, "missing.jsonl"))).toThrow(/ENOENT/);
  });
});

describe("readSession and findSessionFiles", () => {
  it("reads every file of a session in index order, ignoring other sessions with a common prefix", () => {
    const loc = tempLocation();
    const writer = TraceWriter.create(loc, "s1");
    writer.append(meta("s1"));
    writer.append(userText("one"));
    for (let i = 2; i <= 11; i++) {
      writer.rotate();
      writer.append(meta("s1"));
      writer.append(userText(`context ${i}`));
    }
    writer.close();
    const other = TraceWriter.create(loc, "s1_x");
    other.append(meta("s1_x"));
    other.close();

    const files = findSessionFiles(loc, "s1");
    expect(files.map((f) => f.split("/").at(-1))).toEqual(
      Array.from({ length: 11 }, (_, i) => `s1_${String(i + 1).padStart(3, "0")}.jsonl`),
    );
    const session = readSession(loc, "s1");
    expect(session.files).toEqual(files);
    expect(
      session.records.filter((r) => r.type === "model_msg").map((r) => (r.payload as { text: string }).text),
    ).toEqual(["one", ...Array.from({ length: 10 }, (_, i) => `context ${i + 2}`)]);
    expect(findSessionFiles(loc, "s1_x")).toHaveLength(1);
  });

  it("reports diagnostics from every file", () => {
    const loc = tempLocation();
    const day = join(loc.tracesDir, "2026-01-01");
    mkdirSync(day, { recursive: true });
    writeFileSync(join(day, "s1_001.jsonl"), `${line(meta("s1"))}garbage\n`);
    writeFileSync(join(day, "s1_002.jsonl"), `${line(meta("s1"))}${line(assistantText("x")).slice(0, 12)}`);
    const { records, diagnostics } = readSession(loc, "s1");
    expect(records).toHaveLength(2);
    expect(diagnostics.map((d) => [d.path.slice(-12), d.line, d.kind])).toEqual([
      ["s1_001.jsonl", 2, "malformed_line"],
      ["s1_002.jsonl", 2, "torn_last_line"],
    ]);
  });

  it("throws session_not_found for an unknown session and invalid_session_id for a bad id", () => {
    const loc = tempLocation();
    expect(() => readSession(loc, "nope")).toThrow(expect.objectContaining({ code: "session_not_found" }));
    expect(findSessionFiles(loc, "nope")).toEqual([]);
    expect(() => findSessionFiles(loc, "../etc")).toThrow(
      expect.objectContaining({ code: "invalid_session_id" }),
    );
    expect(() => readSession(loc, "a/b")).toThrow(/invalid session id "a\/b"/);
  });
});

describe("iterateSession", () => {
  it("yields the records of all files in order and passes diagnostics to a callback", () => {
    const loc = tempLocation();
    const writer = TraceWriter.create(loc, "s1");
    writer.append(meta("s1"));
    writer.append(userText("a"));
    writer.rotate();
    writer.append(meta("s1"));
    writer.append(userText("b"));
    writer.close();
    writeFileSync(writer.path, "oops\n", { flag: "a" });
    const seen: TraceDiagnostic[] = [];
    const types = [...iterateSession(loc, "s1", (d) => seen.push(d))].map((r) =>
      r.type === "model_msg" ? (r.payload as { text: string }).text : r.type,
    );
    expect(types).toEqual(["session_meta", "a", "session_meta", "b"]);
    expect(seen.map((d) => d.line)).toEqual([3]);
    expect(() => [...iterateSession(loc, "other")]).toThrow(/has no trace/);
  });
});
