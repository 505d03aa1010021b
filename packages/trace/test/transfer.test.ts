import { appendFileSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  assistantText,
  partialText,
  requestBegin,
  requestEnd,
  userText,
  withOrigin,
} from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import {
  exportSession,
  findSessionFiles,
  importSession,
  readSession,
  rebuildContext,
  TraceWriter,
} from "../src/index.js";
import { meta, modeOf, tempLocation, tempRoot } from "./helpers.js";

type Loc = ReturnType<typeof tempLocation>;

/** A session of two files (one rotation), started on 2026-05-06. */
function twoFileSession(loc: Loc, id = "s1"): void {
  const writer = TraceWriter.create(loc, id, { date: new Date("2026-05-06T08:00:00Z") });
  writer.append({ ...meta(id), timestamp: "2026-05-06T08:00:00.000Z" });
  writer.append(userText("one"));
  writer.append(requestBegin());
  writer.append(assistantText("answer one"));
  writer.append(requestEnd("completed"));
  writer.rotate();
  writer.append(meta(id));
  writer.append(userText("two"));
  writer.close();
}

const line = (value: unknown) => `${JSON.stringify(value)}\n`;

describe("exportSession", () => {
  it("writes all files of a session, in order, as one JSONL file, 0600 in a new 0700 folder", () => {
    const loc = tempLocation();
    twoFileSession(loc);
    const dest = join(tempRoot(), "exports", "nested", "s1.jsonl");
    const result = exportSession(loc, "s1", dest);
    expect(result).toEqual({ records: 7, diagnostics: [] });
    const expected = findSessionFiles(loc, "s1")
      .map((f) => readFileSync(f, "utf8"))
      .join("");
    expect(readFileSync(dest, "utf8")).toBe(expected);
    expect(modeOf(statSync(dest))).toBe(0o600);
    expect(modeOf(statSync(join(dest, "..")))).toBe(0o700);
    expect(readdirSync(join(dest, ".."))).toEqual(["s1.jsonl"]);
  });

  it("replaces an existing file and leaves it private", () => {
    const loc = tempLocation();
    twoFileSession(loc);
    const dest = join(tempRoot(), "s1.jsonl");
    writeFileSync(dest, "old contents", { mode: 0o644 });
    exportSession(loc, "s1", dest);
    expect(modeOf(statSync(dest))).toBe(0o600);
    expect(readFileSync(dest, "utf8")).not.toContain("old contents");
  });

  it("leaves out torn and malformed lines, reports them, and still imports cleanly", () => {
    const loc = tempLocation();
    twoFileSession(loc);
    const [first, second] = findSessionFiles(loc, "s1");
    appendFileSync(first, "garbage\n");
    appendFileSync(second, '{"timestamp":"x","ty');
    const dest = join(tempRoot(), "s1.jsonl");
    const result = exportSession(loc, "s1", dest);
    expect(result.records).toBe(7);
    expect(result.diagnostics.map((d) => d.kind)).toEqual(["malformed_line", "torn_last_line"]);
    expect(readFileSync(dest, "utf8").split("\n").filter(Boolean)).toHaveLength(7);
    expect(importSession(tempLocation(), dest)).toBe("s1");
  });

  it("throws for an unknown session or a bad id", () => {
    const loc = tempLocation();
    expect(() => exportSession(loc, "nope", join(tempRoot(), "x.jsonl"))).toThrow(
      expect.objectContaining({ code: "session_not_found" }),
    );
    expect(() => exportSession(loc, "../x", join(tempRoot(), "x.jsonl"))).toThrow(/invalid session id/);
  });
});

describe("importSession", () => {
  it("round-trips an export: same files, same records, same rebuilt context", () => {
    const source = tempLocation();
    twoFileSession(source);
    const file = join(tempRoot(), "s1.jsonl");
    exportSession(source, "s1", file);

    const target = tempLocation();
    expect(importSession(target, file)).toBe("s1");
    const files = findSessionFiles(target, "s1");
    expect(files).toEqual([
      join(target.tracesDir, "2026-05-06", "s1_001.jsonl"),
      join(target.tracesDir, "2026-05-06", "s1_002.jsonl"),
    ]);
    expect(files.map((f) => readFileSync(f, "utf8"))).toEqual(
      findSessionFiles(source, "s1").map((f) => readFileSync(f, "utf8")),
    );
    for (const f of files) expect(modeOf(statSync(f))).toBe(0o600);
    expect(modeOf(statSync(join(target.tracesDir, "2026-05-06")))).toBe(0o700);
    expect(rebuildContext(readSession(target, "s1").records)).toEqual(
      rebuildContext(readSession(source, "s1").records),
    );

    const writer = TraceWriter.open(target, "s1");
    expect(writer.path).toBe(files[1]);
    writer.close();
  });

  it("rejects an id that already exists, and imports under a new id when asked", () => {
    const loc = tempLocation();
    twoFileSession(loc);
    const file = join(tempRoot(), "s1.jsonl");
    exportSession(loc, "s1", file);
    expect(() => importSession(loc, file)).toThrow(expect.objectContaining({ code: "session_exists" }));
    expect(importSession(loc, file, { newSessionId: "s1-copy" })).toBe("s1-copy");
    const copy = readSession(loc, "s1-copy");
    expect(copy.files).toHaveLength(2);
    expect(copy.records.filter((r) => r.type === "session_meta").map((r) => r.payload.session_id)).toEqual([
      "s1-copy",
      "s1-copy",
    ]);
    expect(() => importSession(loc, file, { newSessionId: "bad/id" })).toThrow(
      expect.objectContaining({ code: "invalid_session_id" }),
    );
  });

  const cases: Array<[string, string, RegExp]> = [
    [
      "a broken line",
      `${line(meta("s1"))}${line(userText("ok"))}{broken\n`,
      /:3: not a valid record: not valid JSON/,
    ],
    [
      "an invalid field",
      `${line(meta("s1"))}${line({ ...userText("x"), payload: { type: "text", role: "bot", text: "x" } })}`,
      /:2: not a valid record: payload\.role/,
    ],
    [
      "no session_meta first",
      `${line(userText("hi"))}${line(meta("s1"))}`,
      /:1: a session must start with a session_meta record, found model_msg/,
    ],
    [
      "a partial",
      `${line(meta("s1"))}${line(partialText("delta", "he"))}`,
      /:2: partial message partial_text/,
    ],
    [
      "a child's message",
      `${line(meta("s1"))}${line(withOrigin(userText("x"), "kid"))}`,
      /:2: a child session's message/,
    ],
    [
      "two sessions",
      `${line(meta("s1"))}\n${line(meta("s2"))}`,
      /:3: session_meta of session s2 inside session s1/,
    ],
    ["an empty file", "\n\n", /:1: empty file/],
    [
      "an id that cannot name a file",
      line(meta("../../etc")),
      /:1: session id "..\/..\/etc" cannot name a trace file/,
    ],
  ];
  for (const [what, text, message] of cases) {
    it(`rejects ${what} with the line number, writing nothing`, () => {
      const loc = tempLocation();
      const file = join(tempRoot(), "in.jsonl");
      writeFileSync(file, text);
      expect(() => importSession(loc, file)).toThrow(message);
      expect(() => importSession(loc, file)).toThrow(expect.objectContaining({ code: "invalid_import" }));
      expect(existsSync(loc.tracesDir)).toBe(false);
    });
  }
});
