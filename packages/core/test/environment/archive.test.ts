import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { partialToolCallOutput } from "@penguin/protocol";
import { DEFAULT_TOOL_DEFINITIONS } from "@penguin/state";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ArchiveCapture, archiveFileName } from "../../src/environment/archive.js";
import { ARCHIVE_BUDGET_BYTES, READ_FILE_SCAN_CAP_BYTES } from "../../src/environment/limits.js";
import { archiveFailedNote, REDACTED_MARKER, truncationMarker } from "../../src/environment/markers.js";
import { createReadFileTool } from "../../src/tools/read-file/read-file.js";
import { createBuiltinTools } from "../../src/tools/registry.js";
import { chunkTool, makeEnvironment, runCall, type TempDirs, tempDirs, testTool } from "./support.js";

let dirs: TempDirs;
beforeEach(async () => {
  dirs = await tempDirs();
});
afterEach(async () => {
  await dirs.cleanup();
});

const archiveDir = () => join(dirs.scratchpadDir, "truncated-tool-output");

/** The absolute path at the end of the archive note: "always the last element inside the bracket". */
function notedPath(output: string): string {
  const match = /: (\/[^\]\n]+)\]$/.exec(output);
  if (!match) throw new Error(`no archive path at the end of: ${output.slice(-200)}`);
  return match[1];
}

const numbered = (count: number) => Array.from({ length: count }, (_, i) => `line ${i + 1}\n`).join("");

describe("recovering oversized output", () => {
  it("writes nothing when the output was not truncated", async () => {
    const env = makeEnvironment(dirs, [chunkTool(["x".repeat(100)], {}, { maxOutputLength: 100 })]);
    await runCall(env, "test_tool");
    await expect(stat(archiveDir())).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("saves the exact text of a truncated call, private, and notes its absolute path last", async () => {
    const text = numbered(500);
    const env = makeEnvironment(dirs, [
      chunkTool([text.slice(0, 777), text.slice(777)], {}, { maxOutputLength: 200 }),
    ]);
    const call = await runCall(env, "test_tool", {}, "call/../../x");
    const path = notedPath(call.complete.output);
    expect(path).toBe(join(archiveDir(), "call_______x.txt"));
    expect(await readFile(path, "utf8")).toBe(text);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(archiveDir())).mode & 0o777).toBe(0o700);
    expect((await stat(dirs.scratchpadDir)).mode & 0o777).toBe(0o700);
    // The note sits after the truncation marker, outside the visible cap, and streams like the rest.
    const lines = call.complete.output.split("\n");
    expect(lines[lines.length - 2]).toBe(truncationMarker(200));
    expect(lines[lines.length - 1]).toContain(`(${Buffer.byteLength(text)} bytes)`);
    expect(call.streamed).toBe(call.complete.output);
  });

  it("keeps an earlier archive when a call id repeats (a resumed session)", async () => {
    const env = makeEnvironment(dirs, [chunkTool(["a".repeat(50)], {}, { maxOutputLength: 10 })]);
    const first = notedPath((await runCall(env, "test_tool", {}, "c1")).complete.output);
    const second = notedPath((await runCall(env, "test_tool", {}, "c1")).complete.output);
    expect(first).not.toBe(second);
    expect((await readdir(archiveDir())).sort()).toEqual(["c1-2.txt", "c1.txt"]);
  });

  it("stores the raw text, secrets included, while the model sees them redacted", async () => {
    const env = makeEnvironment(
      dirs,
      [chunkTool(["token=abc123secret ".repeat(20)], {}, { maxOutputLength: 30 })],
      {
        secrets: ["abc123secret"],
      },
    );
    const call = await runCall(env, "test_tool");
    expect(call.complete.output).not.toContain("abc123secret");
    expect(call.complete.output).toContain(REDACTED_MARKER);
    expect(await readFile(notedPath(call.complete.output), "utf8")).toContain("abc123secret");
  });

  it("read_file pages through an archive with offset and limit", async () => {
    const readFileDef = DEFAULT_TOOL_DEFINITIONS.find((d) => d.name === "read_file")!;
    const env = makeEnvironment(dirs, [
      chunkTool([numbered(3000)], {}, { maxOutputLength: 500 }),
      createReadFileTool(readFileDef),
    ]);
    const path = notedPath((await runCall(env, "test_tool")).complete.output);
    const page = await runCall(env, "read_file", { file_path: path, offset: 2001, limit: 3 }, "read_1");
    expect(page.complete.stop_reason).toBe("completed");
    expect(page.complete.output).toBe(
      "  2001\tline 2001\n  2002\tline 2002\n  2003\tline 2003\n[lines 2001-2003 of 3000; continue with offset=2004]",
    );
  });

  it("beyond the per-call budget keeps head and tail windows with a middle-gap marker, within the budget", async () => {
    // 10 MiB of numbered lines in 64 KiB chunks.
    const chunk = "0123456789abcdef".repeat(4096);
    const chunks = Array.from({ length: 160 }, (_, i) => `<${i}>${chunk.slice(4 + String(i).length)}`);
    const env = makeEnvironment(dirs, [chunkTool(chunks, {}, { maxOutputLength: 1000 })]);
    const call = await runCall(env, "test_tool");
    const path = notedPath(call.complete.output);
    const saved = await readFile(path, "utf8");
    const total = chunks.join("").length;
    expect(Buffer.byteLength(saved)).toBeLessThanOrEqual(ARCHIVE_BUDGET_BYTES);
    expect(ARCHIVE_BUDGET_BYTES).toBe(READ_FILE_SCAN_CAP_BYTES - 1);
    expect(saved.startsWith("<0>")).toBe(true);
    expect(saved.endsWith(chunks[159].slice(-1000))).toBe(true);
    const gap =
      /\n\[\.\.\. (\d+) bytes of output omitted here: only the first and last parts were kept \.\.\.\]\n/.exec(
        saved,
      );
    expect(gap).not.toBeNull();
    const kept = Buffer.byteLength(saved) - Buffer.byteLength(gap![0]);
    expect(Number(gap![1])).toBe(total - kept);
    expect(call.complete.output).toContain(
      `[full output was ${total} bytes; its first and last parts are saved`,
    );
  });

  it("an archive write failure keeps the stop reason, notes only the error code and warns once with the tool name", async () => {
    // Tests run as root, so permissions cannot block the write: put a file where the folder goes.
    await mkdir(dirs.scratchpadDir, { recursive: true });
    await writeFile(archiveDir(), "in the way");
    const warnings: string[] = [];
    const env = makeEnvironment(
      dirs,
      [
        chunkTool(
          ["z".repeat(100)],
          { stopReason: "failed", note: "[exit code: 2]" },
          { maxOutputLength: 10, name: "noisy" },
        ),
      ],
      { warn: (line) => warnings.push(line) },
    );
    const call = await runCall(env, "noisy");
    expect(call.complete.stop_reason).toBe("failed");
    const code = /could not be saved: ([A-Z]+)\]$/.exec(call.complete.output)?.[1];
    expect(code).toMatch(/^(EEXIST|ENOTDIR)$/);
    expect(call.complete.output.endsWith(archiveFailedNote(code!))).toBe(true);
    expect(call.complete.output).not.toContain(dirs.root);
    expect(warnings).toEqual([`penguin: tool noisy: could not save its truncated output (${code})`]);
  });

  it("a 100 MB producer streams through with bounded memory: the capture never holds more than the budget", async () => {
    const capture = new ArchiveCapture();
    const megabyte = "m".repeat(1024 * 1024);
    let peak = 0;
    for (let i = 0; i < 100; i += 1) {
      capture.push(megabyte);
      peak = Math.max(peak, capture.retainedBytes);
    }
    expect(capture.totalBytes).toBe(100 * 1024 * 1024);
    expect(peak).toBeLessThanOrEqual(ARCHIVE_BUDGET_BYTES);
    expect(capture.exact).toBe(false);
  });

  it("a 100 MB producer through the Environment yields the head window and a windowed archive", async () => {
    const megabyte = "m".repeat(1024 * 1024 - 1);
    const tool = testTool(
      async function* (_args, ctx) {
        for (let i = 0; i < 100; i += 1)
          yield partialToolCallOutput("delta", ctx.toolCallId, `${megabyte}\n`);
        return {};
      },
      { maxOutputLength: 16_000 },
    );
    const call = await runCall(makeEnvironment(dirs, [tool]), "test_tool");
    expect(call.complete.output.startsWith("m".repeat(16_000))).toBe(true);
    expect(call.complete.output.length).toBeLessThan(17_000);
    expect((await stat(notedPath(call.complete.output))).size).toBeLessThanOrEqual(ARCHIVE_BUDGET_BYTES);
  });

  it("a released capture's windows serve the next capture, which sees none of the old bytes", () => {
    const first = new ArchiveCapture(4096);
    first.push("old-secret ".repeat(1000));
    first.release();
    expect(() => first.push("more")).toThrow("archive capture used after release");
    const second = new ArchiveCapture(4096);
    second.push("new output");
    expect(second.exact).toBe(true);
    expect(Buffer.concat(second.contents()).toString("utf8")).toBe("new output");
    second.push("é".repeat(3000));
    const text = Buffer.concat(second.contents()).toString("utf8");
    expect(text.startsWith("new outputé")).toBe(true);
    expect(text).not.toContain("old-secret");
    second.release();
  });

  it("names files after the tool call id, made safe", () => {
    expect(archiveFileName("call_ab-1")).toBe("call_ab-1.txt");
    expect(archiveFileName("../etc/passwd")).toBe("___etc_passwd.txt");
    expect(archiveFileName("...")).toBe("call.txt");
    expect(archiveFileName("x".repeat(300)).length).toBe(104);
    expect(archiveFileName("id", 2)).toBe("id-3.txt");
  });

  it("a windowed archive is an exact prefix, the gap marker with the omitted count, and an exact suffix, however the text was chunked", () => {
    const text = Array.from({ length: 2000 }, (_, i) => `line ${i} ✓ ${"x".repeat(i % 17)}`).join("\n");
    const bytes = Buffer.from(text, "utf8");
    for (const chunk of [1, 7, 64, 333, 5000, bytes.length]) {
      const capture = new ArchiveCapture(4096);
      for (let i = 0; i < text.length; i += chunk) capture.push(text.slice(i, i + chunk));
      expect(capture.totalBytes).toBe(bytes.length);
      expect(capture.exact).toBe(false);
      const [head, marker, ...tailPieces] = capture.contents();
      const tail = Buffer.concat(tailPieces);
      expect(bytes.subarray(0, head.length).equals(head)).toBe(true);
      expect(bytes.subarray(bytes.length - tail.length).equals(tail)).toBe(true);
      expect(head.length + marker.length + tail.length).toBeLessThanOrEqual(4096);
      expect(marker.toString("utf8")).toContain(String(bytes.length - head.length - tail.length));
    }
  });

  it("cuts windows at character boundaries, never inside a UTF-8 sequence", () => {
    const capture = new ArchiveCapture(1024);
    capture.push("é".repeat(1000));
    const text = Buffer.concat(capture.contents()).toString("utf8");
    expect(text).not.toContain("\uFFFD");
    expect(text.startsWith("é")).toBe(true);
    expect(text.endsWith("é")).toBe(true);
  });
});

describe("recovering a real command's oversized output", () => {
  it("exec_command output past the cap is archived and read_file pages through it", async () => {
    await mkdir(dirs.workspaceDir, { recursive: true });
    const { tools } = createBuiltinTools(DEFAULT_TOOL_DEFINITIONS);
    const env = makeEnvironment(dirs, tools);
    try {
      const run = await runCall(env, "exec_command", { description: "count", cmd: "seq 1 100000" });
      expect(run.complete.stop_reason).toBe("completed");
      expect(run.complete.output.startsWith("1\n2\n3\n")).toBe(true);
      expect(run.complete.output).toContain(truncationMarker(16_000));
      const path = notedPath(run.complete.output);
      const page = await runCall(env, "read_file", { file_path: path, offset: 50_000, limit: 2 }, "read_2");
      expect(page.complete.output).toBe(
        " 50000\t50000\n 50001\t50001\n[lines 50000-50001 of 100000; continue with offset=50002]",
      );
    } finally {
      await env.dispose();
    }
  });
});
