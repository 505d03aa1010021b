import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { applyWriteGuard, DEFAULT_TOOL_DEFINITIONS } from "@penguin/state";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FileAccess, FileAccessError } from "../../src/environment/file-access.js";
import { createEditFileTool } from "../../src/tools/edit-file/edit-file.js";
import { diskFileAccess } from "../../src/tools/files/disk-file-access.js";
import { linesOfText, SEAM_READ_MAX_BYTES } from "../../src/tools/files/file-text.js";
import { createReadFileTool } from "../../src/tools/read-file/read-file.js";
import { createWriteFileTool } from "../../src/tools/write-file/write-file.js";
import { makeEnvironment, runCall, type TempDirs, tempDirs } from "../environment/support.js";

// The file tools through a FileAccess seam (an editor's buffers in `penguin acp`): the buffer's
// text is what the model reads and changes, the disk still answers what a path is.

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

/** An editor's open buffers: reads answer from them (else the disk), writes land in them only. */
class Buffers implements FileAccess {
  readonly text = new Map<string, string>();
  readonly reads: string[] = [];
  readonly writes: string[] = [];
  refuse: string | undefined;

  async readText(path: string): Promise<string> {
    this.reads.push(path);
    if (this.refuse) throw new FileAccessError(this.refuse);
    return this.text.get(path) ?? (await readFile(path, "utf8"));
  }

  async writeText(path: string, text: string): Promise<void> {
    this.writes.push(path);
    if (this.refuse) throw new FileAccessError(this.refuse);
    this.text.set(path, text);
  }
}

const definitionOf = (name: string, guarded: boolean) => {
  const found = DEFAULT_TOOL_DEFINITIONS.find((d) => d.name === name)!;
  return guarded ? applyWriteGuard(found) : found;
};
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

function environment(files: FileAccess | undefined, writeGuard = true) {
  return makeEnvironment(
    dirs,
    [
      createReadFileTool(definitionOf("read_file", writeGuard)),
      createEditFileTool(definitionOf("edit_file", writeGuard)),
      createWriteFileTool(definitionOf("write_file", writeGuard)),
    ],
    { writeGuard, files },
  );
}

describe("file tools through a FileAccess seam", () => {
  it("read_file shows the buffer's text, windowed and hashed as on disk", async () => {
    await writeFile(file, "on disk\n");
    const buffers = new Buffers();
    buffers.text.set(file, "one\r\ntwo\nthree\nfour\n");
    const env = environment(buffers);
    const out = (await runCall(env, "read_file", { file_path: "app.ts", offset: 2, limit: 2 })).complete;
    expect(out.stop_reason).toBe("completed");
    expect(out.output).toBe(
      [
        "     2\ttwo",
        "     3\tthree",
        "[lines 2-3 of 4; continue with offset=4]",
        `[sha256: ${sha256("one\r\ntwo\nthree\nfour\n")}]`,
      ].join("\n"),
    );
    expect(buffers.reads).toEqual([file]);
  });

  it("edit_file changes the buffer, not the disk, with the diff of the buffer's text", async () => {
    await writeFile(file, "const a = 1;\n");
    const buffers = new Buffers();
    buffers.text.set(file, "const a = 1;\nconst unsaved = 2;\n");
    const env = environment(buffers);
    await runCall(env, "read_file", { file_path: "app.ts" });
    const out = (
      await runCall(env, "edit_file", {
        file_path: "app.ts",
        old_string: "const unsaved = 2;",
        new_string: "const unsaved = 3;",
      })
    ).complete;
    expect(out.stop_reason).toBe("completed");
    expect(out.output).toContain("-const unsaved = 2;\n+const unsaved = 3;");
    expect(buffers.text.get(file)).toBe("const a = 1;\nconst unsaved = 3;\n");
    expect(buffers.writes).toEqual([file]);
    expect(await readFile(file, "utf8")).toBe("const a = 1;\n");
    expect(out.output).toContain(`[sha256: ${sha256("const a = 1;\nconst unsaved = 3;\n")}]`);
  });

  it("refuses an edit when the buffer changed after the read, with both hashes", async () => {
    await writeFile(file, "x = 1\n");
    const buffers = new Buffers();
    buffers.text.set(file, "x = 1\n");
    const env = environment(buffers);
    await runCall(env, "read_file", { file_path: "app.ts" });
    buffers.text.set(file, "x = 1\ny = 2\n");
    const out = (
      await runCall(env, "edit_file", { file_path: "app.ts", old_string: "x = 1", new_string: "x = 5" })
    ).complete;
    expect(out.stop_reason).toBe("failed");
    expect(out.output).toContain("The file changed underneath");
    expect(out.output).toContain(sha256("x = 1\n"));
    expect(out.output).toContain(sha256("x = 1\ny = 2\n"));
    expect(buffers.writes).toEqual([]);
  });

  it("refuses an edit of a file not read in this task", async () => {
    await writeFile(file, "x = 1\n");
    const buffers = new Buffers();
    const out = (
      await runCall(environment(buffers), "edit_file", {
        file_path: "app.ts",
        old_string: "x",
        new_string: "y",
      })
    ).complete;
    expect(out.output).toContain("It has not been read in this task");
    expect(buffers.writes).toEqual([]);
  });

  it("write_file needs the buffer's hash to overwrite, and creates new files through the seam", async () => {
    await writeFile(file, "disk\n");
    const buffers = new Buffers();
    buffers.text.set(file, "buffer\n");
    const env = environment(buffers);
    await runCall(env, "read_file", { file_path: "app.ts" });
    const stale = (
      await runCall(env, "write_file", {
        file_path: "app.ts",
        content: "new\n",
        expected_sha256: sha256("disk\n"),
      })
    ).complete;
    expect(stale.output).toContain("The file changed underneath");
    const ok = (
      await runCall(env, "write_file", {
        file_path: "app.ts",
        content: "new\n",
        expected_sha256: sha256("buffer\n"),
      })
    ).complete;
    expect(ok.stop_reason).toBe("completed");
    expect(ok.output).toContain("-buffer\n+new");
    expect(buffers.text.get(file)).toBe("new\n");
    expect(await readFile(file, "utf8")).toBe("disk\n");

    const created = join(dirs.workspaceDir, "src", "made.ts");
    const out = (await runCall(env, "write_file", { file_path: "src/made.ts", content: "made\n" })).complete;
    expect(out.output).toContain(`Created ${created}`);
    expect(buffers.text.get(created)).toBe("made\n");
    // The folder is made on disk; the file is the editor's to save.
    expect((await stat(join(dirs.workspaceDir, "src"))).isDirectory()).toBe(true);
  });

  it("answers a missing file, a folder and binary content from the disk, without asking the seam", async () => {
    const buffers = new Buffers();
    const env = environment(buffers);
    const missing = (await runCall(env, "read_file", { file_path: "nope.ts" })).complete;
    expect(missing.output).toContain("File not found");
    await mkdir(join(dirs.workspaceDir, "dir"));
    const folder = (await runCall(env, "read_file", { file_path: "dir" })).complete;
    expect(folder.output).toContain("is a directory");
    await writeFile(file, Buffer.from([0x61, 0, 0x62]));
    const binary = (await runCall(env, "read_file", { file_path: "app.ts" })).complete;
    expect(binary.output).toContain("looks like a binary file");
    const edit = (await runCall(env, "edit_file", { file_path: "app.ts", old_string: "a", new_string: "c" }))
      .complete;
    expect(edit.output).toContain("looks like a binary file");
    expect(buffers.reads).toEqual([]);
  });

  it("turns the seam's refusal into a clear tool error, changing nothing", async () => {
    await writeFile(file, "x = 1\n");
    const buffers = new Buffers();
    buffers.refuse = "the editor refused: permission denied by the user";
    const env = environment(buffers, false);
    const read = (await runCall(env, "read_file", { file_path: "app.ts" })).complete;
    expect(read.stop_reason).toBe("failed");
    expect(read.output).toContain(`Cannot read ${file}: the editor refused: permission denied by the user.`);
    const write = (await runCall(env, "write_file", { file_path: "new.ts", content: "n\n" })).complete;
    expect(write.stop_reason).toBe("failed");
    expect(write.output).toContain("Cannot write");
    expect(write.output).toContain("the editor refused");
  });

  it("reads a file larger than the seam's cap from the disk", async () => {
    await writeFile(file, `${"x".repeat(SEAM_READ_MAX_BYTES)}\nlast\n`);
    const buffers = new Buffers();
    const out = (await runCall(environment(buffers), "read_file", { file_path: "app.ts", offset: 2 }))
      .complete;
    expect(out.output).toContain("     2\tlast");
    expect(buffers.reads).toEqual([]);
  });

  it("without a seam, the tools read and write the disk", async () => {
    await writeFile(file, "x = 1\n");
    const env = environment(undefined, false);
    await runCall(env, "edit_file", { file_path: "app.ts", old_string: "x = 1", new_string: "x = 2" });
    expect(await readFile(file, "utf8")).toBe("x = 2\n");
  });
});

describe("the disk as a FileAccess", () => {
  it("reads and writes text, and refuses a named pipe", async () => {
    await diskFileAccess.writeText(file, "hello\n");
    expect(await diskFileAccess.readText(file)).toBe("hello\n");
    const pipe = join(dirs.workspaceDir, "pipe");
    execFileSync("mkfifo", [pipe]);
    await expect(diskFileAccess.readText(pipe)).rejects.toThrow(/named pipe/);
  });

  it("numbers a text's lines as read_file numbers a file's", () => {
    expect(linesOfText("")).toEqual([]);
    expect(linesOfText("\n")).toEqual([""]);
    expect(linesOfText("a\r\nb")).toEqual(["a", "b"]);
    expect(linesOfText("a\n\nb\n")).toEqual(["a", "", "b"]);
  });
});
