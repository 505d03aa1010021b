import { createHash } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { DEFAULT_TOOL_DEFINITIONS } from "@penguin/state";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createEditFileTool } from "../../src/tools/edit-file/edit-file.js";
import { createReadFileTool } from "../../src/tools/read-file/read-file.js";
import { makeEnvironment, runCall, type TempDirs, tempDirs } from "../environment/support.js";

// edit_file on CRLF, lone-CR and byte-order-marked files, as a model edits them: it copies what
// read_file showed (lines without "\r", "\n" between them), and the file must come out in its
// own line ending, byte for byte.

let dirs: TempDirs;
let file: string;
beforeEach(async () => {
  dirs = await tempDirs();
  await mkdir(dirs.workspaceDir, { recursive: true });
  file = join(dirs.workspaceDir, "notes.txt");
});
afterEach(async () => {
  await dirs.cleanup();
});

const definitionOf = (name: string) => DEFAULT_TOOL_DEFINITIONS.find((d) => d.name === name)!;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

function environment(writeGuard = false) {
  return makeEnvironment(
    dirs,
    [createEditFileTool(definitionOf("edit_file")), createReadFileTool(definitionOf("read_file"))],
    { writeGuard },
  );
}

async function edit(args: Record<string, unknown>) {
  return (await runCall(environment(), "edit_file", { file_path: "notes.txt", ...args })).complete;
}

const bytes = () => readFile(file);

describe("edit_file and line endings", () => {
  it("matches an LF old_string in a CRLF file and writes new_string with CRLF", async () => {
    await writeFile(file, "alpha\r\nbeta\r\ngamma\r\n");
    const out = await edit({ old_string: "alpha\nbeta", new_string: "alpha\nBETA\nbeta2" });
    expect(out.stop_reason).toBe("completed");
    expect(await bytes()).toEqual(Buffer.from("alpha\r\nBETA\r\nbeta2\r\ngamma\r\n"));
    expect(out.output).toBe(
      [
        `Replaced 1 occurrence(s) in ${file}`,
        `--- ${file}`,
        `+++ ${file}`,
        "@@ -1,3 +1,4 @@",
        " alpha",
        "-beta",
        "+BETA",
        "+beta2",
        " gamma",
      ].join("\n"),
    );
  });

  it("leaves no mixed line endings when old_string has CRLF and new_string has LF", async () => {
    await writeFile(file, "one\r\ntwo\r\nthree\r\n");
    const out = await edit({ old_string: "one\r\ntwo", new_string: "ONE\nTWO\nmore" });
    expect(out.stop_reason).toBe("completed");
    expect(await bytes()).toEqual(Buffer.from("ONE\r\nTWO\r\nmore\r\nthree\r\n"));
  });

  it("writes a multi-line new_string in CRLF where old_string was a single line", async () => {
    await writeFile(file, "start\r\nmiddle\r\nend\r\n");
    const out = await edit({ old_string: "middle", new_string: "m1\nm2" });
    expect(out.stop_reason).toBe("completed");
    expect(await bytes()).toEqual(Buffer.from("start\r\nm1\r\nm2\r\nend\r\n"));
  });

  it("writes CRLF lines of new_string in LF into an LF file", async () => {
    await writeFile(file, "a\nb\nc\n");
    const out = await edit({ old_string: "a\r\nb", new_string: "a\r\nB" });
    expect(out.stop_reason).toBe("completed");
    expect(await bytes()).toEqual(Buffer.from("a\nB\nc\n"));
  });

  it("matches and writes lone-CR line breaks in a file that has no LF", async () => {
    await writeFile(file, "first\rsecond\rthird\r");
    const out = await edit({ old_string: "first\nsecond", new_string: "first\nSECOND\nadded" });
    expect(out.stop_reason).toBe("completed");
    expect(await bytes()).toEqual(Buffer.from("first\rSECOND\radded\rthird\r"));
    expect(out.output).toContain(
      ["@@ -1,3 +1,4 @@", " first", "-second", "+SECOND", "+added", " third"].join("\n"),
    );
  });

  it("numbers the lines of a lone-CR file by its CRs when old_string matches twice", async () => {
    const before = "a\rb\ra\rb\r";
    await writeFile(file, before);
    const out = await edit({ old_string: "a\nb", new_string: "c" });
    expect(out.stop_reason).toBe("failed");
    expect(out.output).toContain(
      `old_string occurs 2 times in ${file} (lines 1, 3) once line endings are ignored.`,
    );
    expect(await bytes()).toEqual(Buffer.from(before));
  });

  it("keeps the byte order mark of a CRLF file and never shows it in the diff", async () => {
    await writeFile(file, Buffer.concat([BOM, Buffer.from("head\r\nbody\r\n")]));
    const out = await edit({ old_string: "head\nbody", new_string: "HEAD\nbody" });
    expect(out.stop_reason).toBe("completed");
    expect(await bytes()).toEqual(Buffer.concat([BOM, Buffer.from("HEAD\r\nbody\r\n")]));
    expect(out.output).not.toContain("\uFEFF");
    expect(out.output).toContain(["-head", "+HEAD", " body"].join("\n"));
  });

  it("keeps one byte order mark when old_string starts with the mark copied from read_file", async () => {
    await writeFile(file, Buffer.concat([BOM, Buffer.from("title\nrest\n")]));
    const out = await edit({ old_string: "\uFEFFtitle", new_string: "\uFEFFTitle" });
    expect(out.stop_reason).toBe("completed");
    expect(await bytes()).toEqual(Buffer.concat([BOM, Buffer.from("Title\nrest\n")]));
    expect(out.output).not.toContain("\uFEFF");
  });

  it("refuses an old_string that matches twice once line endings are normalized, changing nothing", async () => {
    const before = "x = 1\r\ny = 2\r\nz\r\nx = 1\r\ny = 2\r\n";
    await writeFile(file, before);
    const out = await edit({ old_string: "x = 1\ny = 2", new_string: "x = 3\ny = 4" });
    expect(out.stop_reason).toBe("failed");
    expect(out.output).toContain(
      `old_string occurs 2 times in ${file} (lines 1, 4) once line endings are ignored. No changes made.`,
    );
    expect(await bytes()).toEqual(Buffer.from(before));
  });

  it("replaces every normalized match with replace_all, each in CRLF", async () => {
    await writeFile(file, "x = 1\r\ny = 2\r\nz\r\nx = 1\r\ny = 2\r\n");
    const out = await edit({ old_string: "x = 1\ny = 2", new_string: "x = 3\ny = 4", replace_all: true });
    expect(out.stop_reason).toBe("completed");
    expect(out.output).toContain("Replaced 2 occurrence(s)");
    expect(await bytes()).toEqual(Buffer.from("x = 3\r\ny = 4\r\nz\r\nx = 3\r\ny = 4\r\n"));
  });

  it("refuses an LF old_string that matches bytes once but looks the same at a CRLF place of a mixed file", async () => {
    const before = "k\nv\r\nk\r\nv\n";
    await writeFile(file, before);
    const out = await edit({ old_string: "k\nv", new_string: "K\nV" });
    expect(out.stop_reason).toBe("failed");
    expect(out.output).toContain(
      `old_string occurs 2 times in ${file} (lines 1, 3) once line endings are ignored`,
    );
    expect(await bytes()).toEqual(Buffer.from(before));
  });

  it("takes the one byte-exact match when old_string spells out CRLF in a mixed file, and keeps that place's CRLF", async () => {
    await writeFile(file, "k\nv\r\nk\r\nv\n");
    const out = await edit({ old_string: "k\r\nv", new_string: "K\r\nV\nW" });
    expect(out.stop_reason).toBe("completed");
    expect(await bytes()).toEqual(Buffer.from("k\nv\r\nK\r\nV\r\nW\n"));
  });

  it("refuses a change that differs from the file only in line endings", async () => {
    const before = "a\r\nb\r\n";
    await writeFile(file, before);
    const out = await edit({ old_string: "a\r\nb", new_string: "a\nb" });
    expect(out.stop_reason).toBe("failed");
    expect(out.output).toBe(
      `new_string differs from old_string only in line endings, and edit_file writes the file's own line endings (CRLF in ${file}), so nothing would change. No changes made. To change line endings, use write_file or exec_command.`,
    );
    expect(await bytes()).toEqual(Buffer.from(before));
  });

  it("still spots an indentation difference in a CRLF file", async () => {
    await writeFile(file, "function f() {\r\n    return 1;\r\n}\r\n");
    const out = await edit({ old_string: "function f() {\n  return 1;\n}", new_string: "x" });
    expect(out.stop_reason).toBe("failed");
    expect(out.output).toContain("differs only in whitespace or indentation starts at line 1");
  });

  it("edits what read_file showed of a CRLF file with a BOM, and reports the hash of the bytes written", async () => {
    await writeFile(file, Buffer.concat([BOM, Buffer.from("[a]\r\nkey = 1\r\n")]));
    const env = environment(true);
    const shown = await runCall(env, "read_file", { file_path: "notes.txt" });
    const secondLine = shown.complete.output.split("\n")[1]!.split("\t")[1]!;
    expect(secondLine).toBe("key = 1");
    const out = (
      await runCall(env, "edit_file", {
        file_path: "notes.txt",
        old_string: `[a]\n${secondLine}`,
        new_string: "[a]\nkey = 2",
      })
    ).complete;
    expect(out.stop_reason).toBe("completed");
    const written = await bytes();
    expect(written).toEqual(Buffer.concat([BOM, Buffer.from("[a]\r\nkey = 2\r\n")]));
    expect(out.output.split("\n").pop()).toBe(
      `[sha256: ${createHash("sha256").update(written).digest("hex")}]`,
    );
  });
});
