import { describe, expect, it } from "vitest";
import { droppedOutputMarker, OutputLog } from "../../src/tools/command/index.js";

describe("the output log of a job", () => {
  it("reads from any position without consuming, so a window and a cursor see the same text", () => {
    const log = new OutputLog(100);
    log.append("one\ntw");
    log.append("o\nthree\n");
    expect(log.readFrom(0)).toBe("one\ntwo\nthree\n");
    expect(log.readFrom(4)).toBe("two\nthree\n");
    expect(log.readFrom(0)).toBe("one\ntwo\nthree\n");
    expect(log.readFrom(log.end)).toBe("");
    expect(log.lineWindow({ limit: 10 })).toEqual({
      lines: ["one", "two", "three"],
      firstLine: 1,
      totalLines: 3,
      droppedLines: 0,
    });
  });

  it("shows the newest lines without an offset, and pages by absolute line number with one", () => {
    const log = new OutputLog(1_000);
    log.append(Array.from({ length: 10 }, (_, i) => `line ${i + 1}\n`).join(""));
    log.append("partial");
    expect(log.lineWindow({ limit: 2 })).toMatchObject({
      lines: ["line 10", "partial"],
      firstLine: 10,
      totalLines: 11,
    });
    expect(log.lineWindow({ offset: 3, limit: 2 })).toMatchObject({
      lines: ["line 3", "line 4"],
      firstLine: 3,
    });
    expect(log.lineWindow({ offset: 50, limit: 2 })).toMatchObject({ lines: [], totalLines: 11 });
  });

  it("drops its oldest text past the cap: a cursor gets the marker, a window the count of lost lines", () => {
    const log = new OutputLog(12);
    log.append("aaa\nbbb\nccc\n"); // 12 chars: full, nothing dropped
    expect(log.lineWindow({ limit: 10 }).droppedLines).toBe(0);
    log.append("ddd\n"); // drops "aaa\n" whole
    expect(log.start).toBe(4);
    expect(log.readFrom(0)).toBe(`${droppedOutputMarker(4)}bbb\nccc\nddd\n`);
    expect(log.lineWindow({ limit: 10 })).toEqual({
      lines: ["bbb", "ccc", "ddd"],
      firstLine: 2,
      totalLines: 4,
      droppedLines: 1,
    });
    log.append("ee"); // drops "bb" of "bbb": that line is lost in part and is not shown
    expect(log.lineWindow({ limit: 10 })).toEqual({
      lines: ["ccc", "ddd", "ee"],
      firstLine: 3,
      totalLines: 5,
      droppedLines: 2,
    });
    // An offset into dropped lines starts at the oldest line still whole.
    expect(log.lineWindow({ offset: 1, limit: 1 }).lines).toEqual(["ccc"]);
  });

  it("keeps the cursor's count exact across drops, as the unread buffer did", () => {
    const log = new OutputLog(5);
    log.append("abc");
    log.append("def");
    log.append("gh");
    let cursor = 0;
    expect(log.readFrom(cursor)).toBe(`${droppedOutputMarker(3)}defgh`);
    cursor = log.end;
    log.append("1234567");
    expect(log.readFrom(cursor)).toBe(`${droppedOutputMarker(2)}34567`);
  });

  it("shows the tail of a single line longer than the cap, marked as cut", () => {
    const log = new OutputLog(4);
    log.append("0123456789");
    expect(log.lineWindow({ limit: 3 })).toEqual({
      lines: ["…6789"],
      firstLine: 1,
      totalLines: 1,
      droppedLines: 1,
    });
  });

  it("agrees with the plain text it was given, whatever the sizes of the appends", () => {
    // A fixed pseudo-random sequence of appends: single characters, short lines, large blocks.
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed;
    };
    const log = new OutputLog(5_000);
    let all = "";
    let cursor = 0;
    for (let i = 0; i < 3_000; i++) {
      const size = [1, 1, 3, 40, 9_000][next() % 5] as number;
      const text = Array.from({ length: size }, () => "ab\ncd"[next() % 5]).join("");
      log.append(text);
      all += text;
      if (i % 97 === 0) {
        const read = log.readFrom(cursor);
        const kept = all.slice(all.length - log.size);
        const gone = Math.max(0, log.start - cursor);
        expect(read).toBe(
          (gone > 0 ? droppedOutputMarker(gone) : "") + all.slice(Math.max(cursor, log.start)),
        );
        expect(log.readFrom(log.start)).toBe(kept);
        cursor = log.end;
      }
    }
    expect(log.size).toBe(5_000);
    expect(log.end).toBe(all.length);
    const window = log.lineWindow({ limit: 5 });
    const lines = all.split("\n");
    if (lines[lines.length - 1] === "") lines.pop();
    expect(window.totalLines).toBe(lines.length);
    expect(window.lines).toEqual(lines.slice(-window.lines.length));
  });

  it("holds any script exactly, switching from one to two bytes a character midway", () => {
    // ASCII first (stored one byte a character), then Latin-1, BMP and astral characters
    // (stored two bytes a character from the first one above U+00FF), across wraps and drops.
    let seed = 11;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed;
    };
    const log = new OutputLog(3_000);
    let all = "";
    const alphabets = ["ab\n", "ab\né\t", "x€\n😀é"];
    for (let i = 0; i < 1_500; i++) {
      const alphabet = Array.from(alphabets[Math.min(2, Math.floor(i / 500))] as string);
      const size = [1, 5, 60, 2_000][next() % 4] as number;
      const text = Array.from({ length: size }, () => alphabet[next() % alphabet.length]).join("");
      log.append(text, /^[\x00-\x7f]*$/.test(text));
      all += text;
      if (i % 50 === 0 || i === 1_499) {
        expect(log.readFrom(log.start)).toBe(all.slice(all.length - log.size));
        expect(log.end).toBe(all.length);
        expect(log.size).toBeLessThanOrEqual(3_000);
        // Never starts with the second half of a surrogate pair.
        const first = log.readFrom(log.start).charCodeAt(0);
        expect(first >= 0xdc00 && first <= 0xdfff).toBe(false);
      }
    }
    const lines = all.split("\n");
    if (lines[lines.length - 1] === "") lines.pop();
    const window = log.lineWindow({ limit: 3 });
    expect(window.totalLines).toBe(lines.length);
    expect(window.lines).toEqual(lines.slice(-window.lines.length));
  });

  it("never splits a surrogate pair when it drops", () => {
    const log = new OutputLog(3);
    log.append("a😀bc");
    expect(log.readFrom(0)).toBe(`${droppedOutputMarker(3)}bc`);
  });

  it("rejects a cap that is not a positive integer", () => {
    expect(() => new OutputLog(0)).toThrow("output buffer cap must be a positive integer, got 0");
  });
});
