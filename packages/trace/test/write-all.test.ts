import { closeSync, openSync, readdirSync, readFileSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { assistantText, userText } from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import { exportSession, findSessionFiles, importSession, readSession, TraceWriter } from "../src/index.js";
import { type WriteBytes, writeAllSync, writePrivateFileAtomically } from "../src/write-all.js";
import { meta, tempLocation, tempRoot } from "./helpers.js";

/** A real write that takes at most `max` bytes per call, as a busy or nearly full disk may. */
const shortWrites =
  (max: number, calls: number[] = []): WriteBytes =>
  (fd, buffer, offset, length) => {
    calls.push(length);
    return writeSync(fd, buffer, offset, Math.min(length, max));
  };

/** Writes `okBytes` for real, then fails the way a full disk does. */
const fullDiskAfter =
  (okBytes: number): WriteBytes =>
  (fd, buffer, offset, length) => {
    if (offset >= okBytes) {
      throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
    }
    return writeSync(fd, buffer, offset, Math.min(length, okBytes - offset));
  };

describe("writeAllSync", () => {
  it("keeps writing after a short write until every byte is on disk, multi-byte characters too", () => {
    const file = join(tempRoot(), "out.txt");
    const text = "päänsärky 🐧 ".repeat(50);
    const fd = openSync(file, "w");
    const calls: number[] = [];
    try {
      writeAllSync(fd, text, file, shortWrites(7, calls));
    } finally {
      closeSync(fd);
    }
    expect(readFileSync(file, "utf8")).toBe(text);
    expect(calls.length).toBe(Math.ceil(Buffer.byteLength(text) / 7));
  });

  it("turns ENOSPC into an error that names the file and how far it got, keeping the code", () => {
    const file = join(tempRoot(), "out.txt");
    const fd = openSync(file, "w");
    try {
      expect(() => writeAllSync(fd, "x".repeat(100), file, fullDiskAfter(40))).toThrow(
        expect.objectContaining({
          code: "ENOSPC",
          message: `cannot write ${file}: no space left on the device (ENOSPC) after 40 of 100 bytes`,
        }),
      );
    } finally {
      closeSync(fd);
    }
  });

  it("fails with EIO instead of looping when a write takes no bytes", () => {
    const file = join(tempRoot(), "out.txt");
    const fd = openSync(file, "w");
    try {
      expect(() => writeAllSync(fd, "abc", file, () => 0)).toThrow(expect.objectContaining({ code: "EIO" }));
    } finally {
      closeSync(fd);
    }
  });
});

describe("writePrivateFileAtomically", () => {
  it("leaves the old file and no temporary file behind when the disk fills up", () => {
    const dir = tempRoot();
    const dest = join(dir, "export.jsonl");
    writeFileSync(dest, "the previous export\n");
    expect(() => writePrivateFileAtomically(dest, "y".repeat(10_000), fullDiskAfter(4096))).toThrow(/ENOSPC/);
    expect(readFileSync(dest, "utf8")).toBe("the previous export\n");
    expect(readdirSync(dir)).toEqual(["export.jsonl"]);
  });

  it("creates nothing when a new file cannot be written whole", () => {
    const dir = join(tempRoot(), "exports");
    expect(() =>
      writePrivateFileAtomically(join(dir, "new.jsonl"), "z".repeat(100), fullDiskAfter(0)),
    ).toThrow(/no space left/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("writes the whole text through short writes", () => {
    const dest = join(tempRoot(), "export.jsonl");
    const text = "line\n".repeat(3000);
    writePrivateFileAtomically(dest, text, shortWrites(1000));
    expect(readFileSync(dest, "utf8")).toBe(text);
  });
});

describe("large exports and imports", () => {
  it("export and import a session of many megabytes byte for byte", () => {
    const loc = tempLocation();
    const writer = TraceWriter.create(loc, "big");
    writer.append(meta("big"));
    const chunk = "0123456789abcdef🐧".repeat(200);
    for (let i = 0; i < 1500; i++) {
      writer.append(userText(`question ${i} ${chunk}`));
      writer.append(assistantText(`answer ${i} ${chunk}`));
    }
    writer.close();
    const dest = join(tempRoot(), "big.jsonl");
    expect(exportSession(loc, "big", dest).records).toBe(3001);
    const original = findSessionFiles(loc, "big")
      .map((f) => readFileSync(f, "utf8"))
      .join("");
    expect(Buffer.byteLength(original)).toBeGreaterThan(10_000_000);
    expect(readFileSync(dest, "utf8")).toBe(original);

    const other = tempLocation();
    importSession(other, dest);
    const imported = findSessionFiles(other, "big")
      .map((f) => readFileSync(f, "utf8"))
      .join("");
    expect(imported).toBe(original);
    expect(readSession(other, "big").records).toHaveLength(3001);
  });
});
