import { mkdir, open, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { DEFAULT_TOOL_DEFINITIONS, type ToolDefinitionConfig } from "@penguin/state";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { READ_FILE_MAX_LINE_CHARS } from "../../src/environment/limits.js";
import { createReadFileTool } from "../../src/tools/read-file/read-file.js";
import { makeEnvironment, runCall, type TempDirs, tempDirs } from "../environment/support.js";

let dirs: TempDirs;
beforeEach(async () => {
  dirs = await tempDirs();
  await mkdir(dirs.workspaceDir, { recursive: true });
});
afterEach(async () => {
  await dirs.cleanup();
});

const readFileDef = DEFAULT_TOOL_DEFINITIONS.find((d) => d.name === "read_file")!;

function env(overrides: Partial<ToolDefinitionConfig> = {}) {
  return makeEnvironment(dirs, [createReadFileTool({ ...readFileDef, ...overrides })]);
}

const numbered = (count: number) => Array.from({ length: count }, (_, i) => `line ${i + 1}`).join("\n");

async function read(args: Record<string, unknown>, overrides: Partial<ToolDefinitionConfig> = {}) {
  return (await runCall(env(overrides), "read_file", args)).complete;
}

describe("read_file", () => {
  it("shows a small file whole, cat -n style: right-aligned number, tab, content", async () => {
    await writeFile(join(dirs.workspaceDir, "a.txt"), "first\n\tindented\nlast");
    const out = await read({ file_path: "a.txt" });
    expect(out.stop_reason).toBe("completed");
    expect(out.output).toBe("     1\tfirst\n     2\t\tindented\n     3\tlast");
  });

  it("reads absolute paths too, and drops the CR of CRLF line ends", async () => {
    const file = join(dirs.root, "outside.txt");
    await writeFile(file, "one\r\ntwo\r\n");
    expect((await read({ file_path: file })).output).toBe("     1\tone\n     2\ttwo");
  });

  it("windows with offset and limit, and points at the continuation", async () => {
    await writeFile(join(dirs.workspaceDir, "long.txt"), `${numbered(5234)}\n`);
    const first = await read({ file_path: "long.txt" }, { maxOutputLength: 0 });
    const lines = first.output.split("\n");
    expect(lines).toHaveLength(2001);
    expect(lines[1999]).toBe("  2000\tline 2000");
    expect(lines[2000]).toBe("[lines 1-2000 of 5234; continue with offset=2001]");

    const middle = await read({ file_path: "long.txt", offset: 2001, limit: 2 });
    expect(middle.output).toBe(
      "  2001\tline 2001\n  2002\tline 2002\n[lines 2001-2002 of 5234; continue with offset=2003]",
    );

    const last = await read({ file_path: "long.txt", offset: 5233 });
    expect(last.output).toBe("  5233\tline 5233\n  5234\tline 5234");
  });

  it("keeps a page within the tool's output cap and says where to continue", async () => {
    await writeFile(join(dirs.workspaceDir, "wide.txt"), numbered(400));
    const out = await read({ file_path: "wide.txt" }, { maxOutputLength: 1000 });
    const lines = out.output.split("\n");
    const note = lines[lines.length - 1];
    expect(out.output.length).toBeLessThanOrEqual(1000);
    expect(note).toMatch(/^\[lines 1-\d+ of 400; output size limit reached; continue with offset=\d+\]$/);
    const shown = lines.length - 1;
    expect(note).toContain(`continue with offset=${shown + 1}`);
  });

  it("still makes progress under a tiny configured output cap: one line per page", async () => {
    await writeFile(join(dirs.workspaceDir, "small.txt"), numbered(50));
    const out = await read({ file_path: "small.txt", offset: 7 }, { maxOutputLength: 150 });
    expect(out.output.split("\n")[0]).toBe("     7\tline 7");
    expect(out.output).toContain("[lines 7-7 of 50; output size limit reached; continue with offset=8]");
  });

  it("cuts an overlong line with a marker", async () => {
    await writeFile(join(dirs.workspaceDir, "min.js"), `${"x".repeat(50_000)}\nshort\n`);
    const out = await read({ file_path: "min.js" }, { maxOutputLength: 0 });
    const [first, second] = out.output.split("\n");
    expect(first).toBe(
      `     1\t${"x".repeat(READ_FILE_MAX_LINE_CHARS)} [… line truncated at ${READ_FILE_MAX_LINE_CHARS} chars]`,
    );
    expect(second).toBe("     2\tshort");
  });

  it("refuses binary content (NUL bytes) with advice", async () => {
    await writeFile(join(dirs.workspaceDir, "blob.bin"), Buffer.from([0x41, 0x00, 0x42]));
    const out = await read({ file_path: "blob.bin" });
    expect(out.stop_reason).toBe("failed");
    expect(out.output).toMatch(
      /looks like a binary file \(it contains NUL bytes\).*exec_command.*image tool/,
    );
  });

  it("names similar files when a file is missing", async () => {
    await writeFile(join(dirs.workspaceDir, "config.yaml"), "a: 1\n");
    await writeFile(join(dirs.workspaceDir, "README.md"), "# hi\n");
    const out = await read({ file_path: "config.yml" });
    expect(out.stop_reason).toBe("failed");
    expect(out.output).toBe(
      `File not found: ${join(dirs.workspaceDir, "config.yml")}. Did you mean ${join(dirs.workspaceDir, "config.yaml")}?`,
    );
  });

  it("names the nearest existing folder when the folder is missing too", async () => {
    const out = await read({ file_path: "src/deep/file.ts" });
    expect(out.output).toBe(
      `File not found: ${join(dirs.workspaceDir, "src/deep/file.ts")}. The folder ${join(dirs.workspaceDir, "src/deep")} does not exist either; the nearest existing folder is ${dirs.workspaceDir}.`,
    );
  });

  it("explains a directory, an empty file and an offset past the end", async () => {
    await mkdir(join(dirs.workspaceDir, "src"));
    expect((await read({ file_path: "src" })).output).toMatch(/is a directory, not a file/);
    await writeFile(join(dirs.workspaceDir, "empty.txt"), "");
    const empty = await read({ file_path: "empty.txt" });
    expect(empty.stop_reason).toBe("completed");
    expect(empty.output).toBe(`${join(dirs.workspaceDir, "empty.txt")} is empty (0 lines).`);
    await writeFile(join(dirs.workspaceDir, "three.txt"), "a\nb\nc\n");
    const past = await read({ file_path: "three.txt", offset: 10 });
    expect(past.stop_reason).toBe("failed");
    expect(past.output).toContain("offset 10 is past the end");
    expect(past.output).toContain("which has 3 lines");
  });

  it("rejects an offset of 0 before the tool runs (schema), naming the argument", async () => {
    await writeFile(join(dirs.workspaceDir, "a.txt"), "a\n");
    const out = await read({ file_path: "a.txt", offset: 0 });
    expect(out.stop_reason).toBe("failed");
    expect(out.output).toContain('argument "offset" must be >= 1, got 0');
  });

  it("windows near the end of a 100 MB file by streaming it", async () => {
    // 100 MB of 100-byte lines, written in 1 MB blocks (1,048,576 lines).
    const path = join(dirs.root, "huge.log");
    const line = `${"z".repeat(99)}\n`;
    const block = Buffer.from(line.repeat(10_486));
    const handle = await open(path, "w");
    try {
      for (let i = 0; i < 100; i += 1) await handle.write(block);
    } finally {
      await handle.close();
    }
    const totalLines = 10_486 * 100;
    const out = await read({ file_path: path, offset: totalLines - 1, limit: 5 });
    expect(out.stop_reason).toBe("completed");
    expect(out.output).toBe(
      `${String(totalLines - 1).padStart(6)}\t${"z".repeat(99)}\n${String(totalLines).padStart(6)}\t${"z".repeat(99)}`,
    );

    const early = await read({ file_path: path, offset: 1, limit: 2 });
    expect(early.output.split("\n")[2]).toMatch(
      /^\[lines 1-2 of more than 2 \(the file has 104860000 bytes; lines are counted in its first 8 MiB only\); continue with offset=3\]$/,
    );
    await rm(path);
  });
});
