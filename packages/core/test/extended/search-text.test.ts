import { mkdir, open, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { baseNameMatcher } from "../../src/tools/extended/glob.js";
import { extendedEnvironment, runCall, type TempDirs, workspace } from "./support.js";

let dirs: TempDirs;
let ws: string;
beforeEach(async () => {
  dirs = await workspace();
  ws = dirs.workspaceDir;
});
afterEach(async () => {
  await dirs.cleanup();
});

type SearchLimits = { maxMatches?: number; maxFileBytes?: number; maxFiles?: number; maxLineChars?: number };

async function search(args: Record<string, unknown>, limits: SearchLimits = {}) {
  const env = extendedEnvironment(dirs, { limits: { search_text: limits } });
  return (await runCall(env, "search_text", args)).complete;
}

const footer = (output: string) => output.split("\n").pop();

describe("search_text", () => {
  beforeEach(async () => {
    await mkdir(join(ws, "src", "lib"), { recursive: true });
    await writeFile(join(ws, "src", "a.ts"), "const x = 1;\n// TODO: fix x\nexport const y = x + 1;\n");
    await writeFile(join(ws, "src", "lib", "b.ts"), "function todo() {}\nTODO again\r\n");
    await writeFile(join(ws, "notes.md"), "# Notes\nTODO: write notes\n");
  });

  it("finds a literal string in a directory tree as path:line:text, in name order", async () => {
    const out = await search({ pattern: "TODO" });
    expect(out.stop_reason).toBe("completed");
    expect(out.output).toBe(
      [
        "notes.md:2:TODO: write notes",
        "src/a.ts:2:// TODO: fix x",
        "src/lib/b.ts:2:TODO again",
        "[3 matches in 3 files (3 searched)]",
      ].join("\n"),
    );
  });

  it("treats pattern literally unless regex is set, and can ignore case", async () => {
    expect(footer((await search({ pattern: "x + 1" })).output)).toBe("[1 match in 1 file (3 searched)]");
    const regex = await search({ pattern: "^(const|export) \\w", regex: true });
    expect(regex.output.split("\n").slice(0, -1)).toEqual([
      "src/a.ts:1:const x = 1;",
      "src/a.ts:3:export const y = x + 1;",
    ]);
    const loose = await search({ pattern: "todo", ignore_case: true, path: "src" });
    expect(footer(loose.output)).toBe("[3 matches in 2 files (2 searched)]");
  });

  it("matches include globs against base names only", async () => {
    const out = await search({ pattern: "TODO", include: ["*.ts"] });
    expect(out.output).not.toContain("notes.md");
    expect(footer(out.output)).toBe("[2 matches in 2 files (2 searched)]");
    const braces = await search({ pattern: "TODO", include: ["{a,notes}.*"] });
    expect(footer(braces.output)).toBe("[2 matches in 2 files (2 searched)]");
  });

  it("searches one file given as the path", async () => {
    const out = await search({ pattern: "x", path: "src/a.ts" });
    expect(footer(out.output)).toBe("[3 matches in 1 file (1 searched)]");
  });

  it("caps the results and counts the matches it left out", async () => {
    await writeFile(join(ws, "many.txt"), Array.from({ length: 50 }, (_, i) => `hit ${i}`).join("\n"));
    const out = await search({ pattern: "hit", path: "many.txt" }, { maxMatches: 5 });
    const lines = out.output.split("\n");
    expect(lines.slice(0, -1)).toEqual([
      "many.txt:1:hit 0",
      "many.txt:2:hit 1",
      "many.txt:3:hit 2",
      "many.txt:4:hit 3",
      "many.txt:5:hit 4",
    ]);
    expect(footer(out.output)).toBe(
      "[50 matches in 1 file (1 searched); 45 more not shown (limit 5): narrow the pattern, path or include]",
    );
  });

  it("cuts very long matching lines", async () => {
    await writeFile(join(ws, "long.txt"), `${"a".repeat(1000)}needle\n`);
    const out = await search({ pattern: "needle", path: "long.txt" }, { maxLineChars: 20 });
    expect(out.output.split("\n")[0]).toBe(`long.txt:1:${"a".repeat(20)} [… line cut at 20 chars]`);
  });

  it("skips binary files and a 2 GB file while walking, without reading the big one", async () => {
    await writeFile(join(ws, "image.bin"), Buffer.from([0x89, 0x50, 0x00, 0x54, 0x4f, 0x44, 0x4f]));
    await writeFile(join(ws, "image2.bin"), Buffer.concat([Buffer.from("TODO"), Buffer.alloc(4)]));
    // Sparse: the file claims 2 GiB but occupies no blocks; never write 2 GB.
    const handle = await open(join(ws, "huge.log"), "w");
    await handle.truncate(2 * 1024 * 1024 * 1024);
    await handle.close();
    const out = await search({ pattern: "TODO" });
    expect(out.stop_reason).toBe("completed");
    expect(out.output).not.toContain("image");
    expect(out.output).not.toContain("huge.log:");
    expect(footer(out.output)).toBe(
      `[3 matches in 3 files (3 searched); skipped 2 binary, 1 over ${10 * 1024 * 1024} bytes]`,
    );
  });

  it("explains instead of skipping when the oversized or binary file is the path itself", async () => {
    await writeFile(join(ws, "big.txt"), "TODO\n".repeat(100));
    const big = await search({ pattern: "TODO", path: "big.txt" }, { maxFileBytes: 100 });
    expect(big.stop_reason).toBe("failed");
    expect(big.output).toContain("has 500 bytes, more than search_text reads (100)");
    await writeFile(join(ws, "x.bin"), Buffer.from([0, 1, 2]));
    const binary = await search({ pattern: "a", path: "x.bin" });
    expect(binary.output).toContain("is a binary file");
  });

  it("does not follow symlinks while walking (a link loop ends) and skips .git", async () => {
    await symlink(ws, join(ws, "src", "back"));
    await symlink("loop2", join(ws, "loop1"));
    await symlink("loop1", join(ws, "loop2"));
    await mkdir(join(ws, ".git"));
    await writeFile(join(ws, ".git", "COMMIT_EDITMSG"), "TODO in git\n");
    const out = await search({ pattern: "TODO" });
    expect(footer(out.output)).toBe("[3 matches in 3 files (3 searched)]");
    expect(out.output).not.toContain(".git");
  });

  it("stops after maxFiles files and says so", async () => {
    const out = await search({ pattern: "TODO" }, { maxFiles: 2 });
    expect(footer(out.output)).toBe(
      "[2 matches in 2 files (2 searched); stopped after 2 files: search a subdirectory]",
    );
  });

  it("reports a broken regular expression, a bad glob and a missing path clearly", async () => {
    const regex = await search({ pattern: "(unclosed", regex: true });
    expect(regex.stop_reason).toBe("failed");
    expect(regex.output).toMatch(
      /^Invalid regular expression: .*\. Fix it, or search for the literal text with regex: false\.$/,
    );
    const glob = await search({ pattern: "x", include: ["[abc"] });
    expect(glob.output).toBe('Invalid include glob: unclosed "[" in glob "[abc".');
    const missing = await search({ pattern: "x", path: "nope" });
    expect(missing.output).toContain(`Not found: ${join(ws, "nope")}.`);
    const none = await search({ pattern: "absent-text" });
    expect(none.output).toBe(`No matches for "absent-text" in ${ws}.\n[0 matches in 0 files (3 searched)]`);
  });
});

describe("include globs", () => {
  it("support *, ?, classes, negated classes and alternatives, and take dots literally", () => {
    const match = baseNameMatcher(["*.ts", "file?.md", "[ab]x.c", "[!q]y.h", "*.{json,yaml}"]);
    for (const name of ["a.ts", "file1.md", "ax.c", "by.h", "c.json", "d.yaml"])
      expect(match(name)).toBe(true);
    for (const name of ["ats", "a.tsx", "file12.md", "cx.c", "qy.h", "e.yml"])
      expect(match(name)).toBe(false);
    expect(baseNameMatcher([])("anything")).toBe(true);
  });
});
