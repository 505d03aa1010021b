import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { DEFAULT_TOOL_DEFINITIONS } from "@penguin/state";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createWriteFileTool } from "../../src/tools/write-file/write-file.js";
import { makeEnvironment, runCall, type TempDirs, tempDirs } from "../environment/support.js";

let dirs: TempDirs;
beforeEach(async () => {
  dirs = await tempDirs();
  await mkdir(dirs.workspaceDir, { recursive: true });
});
afterEach(async () => {
  await dirs.cleanup();
});

const writeDef = DEFAULT_TOOL_DEFINITIONS.find((d) => d.name === "write_file")!;

async function write(file_path: string, content: string) {
  const env = makeEnvironment(dirs, [createWriteFileTool(writeDef)]);
  return (await runCall(env, "write_file", { file_path, content })).complete;
}

describe("write_file", () => {
  it("creates a file and its parent folders, reporting lines and bytes", async () => {
    const out = await write("src/lib/util.ts", "export const x = 1;\nexport const y = 'é';\n");
    const path = join(dirs.workspaceDir, "src/lib/util.ts");
    expect(out.stop_reason).toBe("completed");
    expect(out.output).toBe(`Created ${path} (2 lines, 43 bytes).`);
    expect(await readFile(path, "utf8")).toBe("export const x = 1;\nexport const y = 'é';\n");
  });

  it("an empty content creates an empty file", async () => {
    const out = await write("empty.txt", "");
    const path = join(dirs.workspaceDir, "empty.txt");
    expect(out.output).toBe(`Created ${path} (0 lines, 0 bytes).`);
    expect((await stat(path)).size).toBe(0);
  });

  it("an overwrite shows a small unified diff against the previous content", async () => {
    const path = join(dirs.workspaceDir, "a.txt");
    await writeFile(path, "one\ntwo\nthree\n");
    const out = await write("a.txt", "one\n2\nthree\n");
    expect(out.output).toBe(
      [
        `Overwrote ${path} (3 lines, 12 bytes; previously 14 bytes).`,
        `--- ${path}`,
        `+++ ${path}`,
        "@@ -1,3 +1,3 @@",
        " one",
        "-two",
        "+2",
        " three",
      ].join("\n"),
    );
  });

  it("a large overwrite is summarised in one line as +X/−Y", async () => {
    const path = join(dirs.workspaceDir, "big.txt");
    await writeFile(path, Array.from({ length: 100 }, (_, i) => `old ${i}\n`).join(""));
    const out = await write("big.txt", Array.from({ length: 80 }, (_, i) => `new ${i}\n`).join(""));
    const [headline, summary, ...rest] = out.output.split("\n");
    expect(headline).toMatch(/^Overwrote .* \(80 lines, \d+ bytes; previously \d+ bytes\)\.$/);
    expect(summary).toBe("+80/\u2212100 lines");
    expect(rest).toEqual([]);
  });

  it("says so when the content did not change, and when the old content was binary", async () => {
    const path = join(dirs.workspaceDir, "same.txt");
    await writeFile(path, "same\n");
    expect((await write("same.txt", "same\n")).output.split("\n")[1]).toBe("(content unchanged)");
    await writeFile(path, Buffer.from([0, 1, 2]));
    expect((await write("same.txt", "text\n")).output.split("\n")[1]).toBe(
      "(previous content not compared: it was binary)",
    );
    expect(await readFile(path, "utf8")).toBe("text\n");
  });

  it("fails with a reason on a directory or when a parent is a file", async () => {
    await mkdir(join(dirs.workspaceDir, "dir"));
    const dir = await write("dir", "x");
    expect(dir.stop_reason).toBe("failed");
    expect(dir.output).toContain("is a directory");
    await writeFile(join(dirs.workspaceDir, "plain"), "x");
    const under = await write("plain/child.txt", "x");
    expect(under.stop_reason).toBe("failed");
    expect(under.output).toMatch(/a part of the path is a file|Cannot write/);
  });
});
