import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { DEFAULT_TOOL_DEFINITIONS } from "@penguin/state";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EDIT_MAX_HUNKS } from "../../src/environment/limits.js";
import { createEditFileTool } from "../../src/tools/edit-file/edit-file.js";
import { makeEnvironment, runCall, type TempDirs, tempDirs } from "../environment/support.js";

let dirs: TempDirs;
let file: string;
beforeEach(async () => {
  dirs = await tempDirs();
  await mkdir(dirs.workspaceDir, { recursive: true });
  file = join(dirs.workspaceDir, "app.ts");
});
afterEach(async () => {
  await dirs.cleanup();
});

const editDef = DEFAULT_TOOL_DEFINITIONS.find((d) => d.name === "edit_file")!;

async function edit(args: Record<string, unknown>) {
  const env = makeEnvironment(dirs, [createEditFileTool(editDef)]);
  return (await runCall(env, "edit_file", { file_path: "app.ts", ...args })).complete;
}

const lines = (count: number, text: (i: number) => string) =>
  Array.from({ length: count }, (_, i) => `${text(i + 1)}\n`).join("");

describe("edit_file", () => {
  it("replaces a unique occurrence and echoes a git-style unified diff", async () => {
    await writeFile(file, "const a = 1;\nconst b = 2;\nconst c = 3;\n");
    const out = await edit({ old_string: "const b = 2;", new_string: "const b = 20;" });
    expect(out.stop_reason).toBe("completed");
    expect(await readFile(file, "utf8")).toBe("const a = 1;\nconst b = 20;\nconst c = 3;\n");
    expect(out.output).toBe(
      [
        `Replaced 1 occurrence(s) in ${file}`,
        `--- ${file}`,
        `+++ ${file}`,
        "@@ -1,3 +1,3 @@",
        " const a = 1;",
        "-const b = 2;",
        "+const b = 20;",
        " const c = 3;",
      ].join("\n"),
    );
  });

  it("keeps $ patterns and other special text literally", async () => {
    await writeFile(file, "price = X\n");
    await edit({ old_string: "X", new_string: "$& $1 $$" });
    expect(await readFile(file, "utf8")).toBe("price = $& $1 $$\n");
  });

  it("fails without a change when old_string is missing, and spots a whitespace-only difference", async () => {
    await writeFile(file, "function f() {\n    return 1;\n}\n");
    const out = await edit({ old_string: "function f() {\n  return 1;\n}", new_string: "x" });
    expect(out.stop_reason).toBe("failed");
    expect(out.output).toContain(`old_string was not found in ${file}. No changes made.`);
    expect(out.output).toContain("differs only in whitespace or indentation starts at line 1");
    expect(await readFile(file, "utf8")).toBe("function f() {\n    return 1;\n}\n");
  });

  it("fails with the count and the lines when old_string occurs several times, changing nothing", async () => {
    await writeFile(file, "x = 1\ny = 2\nx = 1\n");
    const out = await edit({ old_string: "x = 1", new_string: "x = 3" });
    expect(out.stop_reason).toBe("failed");
    expect(out.output).toContain(`old_string occurs 2 times in ${file} (lines 1, 3). No changes made.`);
    expect(out.output).toContain("replace_all");
    expect(await readFile(file, "utf8")).toBe("x = 1\ny = 2\nx = 1\n");
  });

  it("replace_all replaces every occurrence, merging nearby sites into one hunk", async () => {
    await writeFile(file, "x = 1\ny = 2\nx = 1\n");
    const out = await edit({ old_string: "x = 1", new_string: "x = 3", replace_all: true });
    expect(out.stop_reason).toBe("completed");
    expect(await readFile(file, "utf8")).toBe("x = 3\ny = 2\nx = 3\n");
    expect(out.output.split("\n")[0]).toBe(`Replaced 2 occurrence(s) in ${file}`);
    expect(out.output.match(/^@@ /gm)).toHaveLength(1);
  });

  it("shows one hunk per distant site", async () => {
    const text = lines(40, (i) => (i === 5 || i === 30 ? "target" : `line ${i}`));
    await writeFile(file, text);
    const out = await edit({ old_string: "target", new_string: "hit", replace_all: true });
    expect(out.output.match(/^@@ .* @@$/gm)).toEqual(["@@ -2,7 +2,7 @@", "@@ -27,7 +27,7 @@"]);
  });

  it("caps a replace_all storm at a few hunks plus '…and N more replacements'", async () => {
    const text = lines(200, (i) => (i % 10 === 0 ? "old()" : `keep ${i}`));
    await writeFile(file, text);
    const out = await edit({ old_string: "old()", new_string: "fresh()", replace_all: true });
    expect(out.stop_reason).toBe("completed");
    expect(out.output.match(/^@@ /gm)).toHaveLength(EDIT_MAX_HUNKS);
    // 20 sites, each far enough apart for its own hunk: 5 shown.
    expect(out.output.endsWith("\n\u2026and 15 more replacements")).toBe(true);
    expect(out.output.split("\n")[0]).toBe(`Replaced 20 occurrence(s) in ${file}`);
  });

  it("refuses when new_string equals old_string, when old_string is empty, and when the file is missing", async () => {
    await writeFile(file, "same\n");
    const same = await edit({ old_string: "same", new_string: "same" });
    expect(same.stop_reason).toBe("failed");
    expect(same.output).toContain("new_string is identical to old_string");
    const empty = await edit({ old_string: "", new_string: "x" });
    expect(empty.output).toContain("old_string is empty");
    const missing = await edit({ file_path: "apps.ts", old_string: "a", new_string: "b" });
    expect(missing.stop_reason).toBe("failed");
    expect(missing.output).toContain(`File not found: ${join(dirs.workspaceDir, "apps.ts")}.`);
    expect(missing.output).toContain("create new ones with write_file");
    expect(missing.output).toContain(`Did you mean ${file}?`);
  });

  it("refuses binary files and files that are not valid UTF-8, leaving them untouched", async () => {
    await writeFile(file, Buffer.from([0x61, 0x00, 0x62]));
    expect((await edit({ old_string: "a", new_string: "b" })).output).toContain("binary file");
    const latin1 = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]);
    await writeFile(file, latin1);
    const out = await edit({ old_string: "caf", new_string: "bar" });
    expect(out.stop_reason).toBe("failed");
    expect(out.output).toContain("not valid UTF-8");
    expect(await readFile(file)).toEqual(latin1);
  });

  it("refuses a directory", async () => {
    await mkdir(join(dirs.workspaceDir, "dir"));
    const out = await edit({ file_path: "dir", old_string: "a", new_string: "b" });
    expect(out.output).toContain("is a directory");
  });
});
