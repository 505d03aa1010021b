import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ArchiveCapture, writeArchive } from "../../src/environment/archive.js";
import { ARCHIVE_BUDGET_BYTES, READ_FILE_SCAN_CAP_BYTES } from "../../src/environment/limits.js";
import { type TempDirs, tempDirs } from "./support.js";

// "One call stores at most 8 MiB (the production byte limit is one byte lower so read_file remains
// below its 8 MiB scan cap)" (environment/archive.ts).

const MiB = 1024 * 1024;
let dirs: TempDirs;
beforeAll(async () => {
  dirs = await tempDirs();
});
afterAll(async () => {
  await dirs.cleanup();
});

describe("the archive's 8 MiB limit", () => {
  it("is one byte below read_file's 8 MiB scan cap", () => {
    expect(READ_FILE_SCAN_CAP_BYTES).toBe(8 * MiB);
    expect(ARCHIVE_BUDGET_BYTES).toBe(8 * MiB - 1);
  });

  it("keeps a 9 MiB output's file within the limit, head and tail windows kept", async () => {
    const capture = new ArchiveCapture();
    const chunk = "x".repeat(MiB - 1);
    capture.push("HEAD\n");
    for (let i = 0; i < 9; i += 1) capture.push(chunk);
    capture.push("\nTAIL");
    expect(capture.retainedBytes).toBeLessThanOrEqual(ARCHIVE_BUDGET_BYTES);
    const saved = await writeArchive(join(dirs.root, "archive"), "call_1", capture);
    capture.release();
    if (!saved.ok) throw new Error(saved.code);
    expect(saved.windowed).toBe(true);
    expect((await stat(saved.path)).size).toBeLessThanOrEqual(ARCHIVE_BUDGET_BYTES);
    expect((await stat(saved.path)).size).toBeLessThan(READ_FILE_SCAN_CAP_BYTES);
    const text = await readFile(saved.path, "utf8");
    expect(text.startsWith("HEAD\n")).toBe(true);
    expect(text.endsWith("\nTAIL")).toBe(true);
  });
});
