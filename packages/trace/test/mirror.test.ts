import { appendFileSync, readFileSync, statSync } from "node:fs";
import { assistantText, partialText, userText } from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import {
  localTraceStreams,
  mirrorTraces,
  readSession,
  type TraceMirror,
  type TraceStreamRef,
  TraceWriter,
  writeTraceCopy,
} from "../src/index.js";
import { meta, modeOf, tempLocation } from "./helpers.js";

/** A mirror that keeps what it gets, and stores it when the test says so. */
class HeldMirror implements TraceMirror {
  readonly lines: Array<{ ref: TraceStreamRef; line: string }> = [];
  #release: Array<() => void> = [];
  appended(ref: TraceStreamRef, line: string): void {
    this.lines.push({ ref, line });
  }
  stored(): Promise<void> {
    return new Promise((resolve) => this.#release.push(resolve));
  }
  release(): void {
    for (const resolve of this.#release.splice(0)) resolve();
  }
}

describe("a mirrored trace", () => {
  it("hands every record a writer stores to the mirror of its folder, with its file, in order", () => {
    const loc = tempLocation();
    const mirror = new HeldMirror();
    const stop = mirrorTraces(loc.tracesDir, mirror);
    try {
      const writer = TraceWriter.create(loc, "s1", { date: new Date("2026-12-01T10:00:00Z") });
      writer.append(meta("s1"));
      writer.append(userText("hello"));
      // Partials are not trace records: the mirror never sees them either.
      expect(writer.append(partialText("delta", "h"))).toBe(false);
      writer.rotate();
      writer.append(meta("s1"));
      writer.close();
      expect(mirror.lines.map(({ ref }) => [ref.sessionId, ref.fileIndex, ref.day])).toEqual([
        ["s1", 1, "2026-12-01"],
        ["s1", 1, "2026-12-01"],
        ["s1", 2, "2026-12-01"],
      ]);
      // The mirror gets exactly the lines of the files.
      const files = readSession(loc, "s1").files;
      const fileLines = files.flatMap((file) => readFileSync(file, "utf8").trimEnd().split("\n"));
      expect(mirror.lines.map(({ line }) => line)).toEqual(fileLines);
    } finally {
      stop();
    }
  });

  it("stored() waits for the mirror, and resolves at once without one", async () => {
    const loc = tempLocation();
    const plain = TraceWriter.create(loc, "plain");
    await expect(plain.stored()).resolves.toBeUndefined();
    plain.close();

    const mirror = new HeldMirror();
    const stop = mirrorTraces(loc.tracesDir, mirror);
    try {
      const writer = TraceWriter.create(loc, "s2");
      writer.append(meta("s2"));
      let done = false;
      const stored = writer.stored().then(() => {
        done = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(done).toBe(false);
      mirror.release();
      await stored;
      expect(done).toBe(true);
      writer.close();
    } finally {
      stop();
    }
  });

  it("refuses a second mirror for the same folder; a stopped one frees it", () => {
    const loc = tempLocation();
    const stop = mirrorTraces(loc.tracesDir, new HeldMirror());
    expect(() => mirrorTraces(`${loc.tracesDir}/.`, new HeldMirror())).toThrow(/mirrored already/);
    stop();
    mirrorTraces(loc.tracesDir, new HeldMirror())();
  });
});

describe("a trace copied back into files", () => {
  it("counts complete records only: a torn last line and a repaired fragment are not records", () => {
    const loc = tempLocation();
    const first = TraceWriter.create(loc, "s3", { date: new Date("2026-12-02T00:00:00Z") });
    first.append(meta("s3"));
    first.close();
    // A crash mid-write, then a writer that opens the file: the fragment becomes its own line.
    appendFileSync(first.path, '{"type":"model_msg","payl');
    const second = TraceWriter.open(loc, "s3");
    second.append(userText("after the tear"));
    second.close();
    appendFileSync(first.path, '{"type":"model');
    const [stream] = localTraceStreams(loc, "s3");
    expect(stream).toMatchObject({ sessionId: "s3", fileIndex: 1, day: "2026-12-02", records: 2 });
    expect(JSON.parse(stream?.lines.at(-1) ?? "")).toMatchObject({
      payload: { role: "user", text: "after the tear" },
    });
  });

  it("rebuilds a session on another machine from its records: replace, then append", () => {
    const source = tempLocation();
    const writer = TraceWriter.create(source, "s4", { date: new Date("2026-12-03T00:00:00Z") });
    writer.append(meta("s4"));
    writer.append(userText("question"));
    writer.append(assistantText("answer"));
    writer.close();
    const lines = readFileSync(writer.path, "utf8").trimEnd().split("\n");
    const ref = { sessionId: "s4", fileIndex: 1, day: "2026-12-03" };

    const target = tempLocation();
    writeTraceCopy(target, ref, lines.slice(0, 2), "replace");
    writeTraceCopy(target, ref, lines.slice(2), "append");
    const copied = readSession(target, "s4");
    expect(copied.records).toEqual(readSession(source, "s4").records);
    expect(modeOf(statSync(copied.files[0] ?? ""))).toBe(0o600);
    // A writer on the target goes on where the copy ends.
    const resumed = TraceWriter.open(target, "s4");
    resumed.append(userText("next"));
    resumed.close();
    expect(readSession(target, "s4").records).toHaveLength(4);
  });

  it("refuses a reference that could leave the traces folder", () => {
    const loc = tempLocation();
    expect(() =>
      writeTraceCopy(loc, { sessionId: "../x", fileIndex: 1, day: "2026-12-03" }, [], "append"),
    ).toThrow(/invalid session id/);
    expect(() =>
      writeTraceCopy(loc, { sessionId: "s5", fileIndex: 1, day: "../../etc" }, [], "append"),
    ).toThrow(/day folder/);
    expect(() =>
      writeTraceCopy(loc, { sessionId: "s5", fileIndex: 0, day: "2026-12-03" }, [], "append"),
    ).toThrow(/file index/);
  });
});
