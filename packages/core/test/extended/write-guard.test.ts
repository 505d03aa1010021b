import { createHash } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { extendedEnvironment, runCall, type TempDirs, workspace } from "./support.js";

let dirs: TempDirs;
let ws: string;
let file: string;
beforeEach(async () => {
  dirs = await workspace();
  ws = dirs.workspaceDir;
  file = join(ws, "app.txt");
  await writeFile(file, "one\ntwo\n");
});
afterEach(async () => {
  await dirs.cleanup();
});

const sha = (text: string) => createHash("sha256").update(text).digest("hex");
const guarded = () => extendedEnvironment(dirs, { writeGuard: true });
const call = async (env: ReturnType<typeof guarded>, name: string, args: Record<string, unknown>) =>
  (await runCall(env, name, args)).complete;

describe("hash-guarded writes (tools.writeGuard on)", () => {
  it("read_file reports the sha256 of the whole file in its note, even for a one-line window", async () => {
    const env = guarded();
    const out = await call(env, "read_file", { file_path: "app.txt", limit: 1 });
    expect(out.output.split("\n").pop()).toBe(`[sha256: ${sha("one\ntwo\n")}]`);
  });

  it("write_file replaces an existing file only after a read and with that read's hash, and reports the new hash", async () => {
    const env = guarded();
    const unread = await call(env, "write_file", { file_path: "app.txt", content: "new\n" });
    expect(unread.stop_reason).toBe("failed");
    expect(unread.output).toContain("It has not been read in this task: read it with read_file first");

    await call(env, "read_file", { file_path: "app.txt" });
    const noHash = await call(env, "write_file", { file_path: "app.txt", content: "new\n" });
    expect(noHash.output).toContain("expected_sha256 is required");

    const ok = await call(env, "write_file", {
      file_path: "app.txt",
      content: "new\n",
      expected_sha256: sha("one\ntwo\n"),
    });
    expect(ok.stop_reason).toBe("completed");
    expect(ok.output.split("\n").pop()).toBe(`[sha256: ${sha("new\n")}]`);
    expect(await readFile(file, "utf8")).toBe("new\n");
    // The reported hash is good for the next change of the same task.
    const again = await call(env, "write_file", {
      file_path: "app.txt",
      content: "newer\n",
      expected_sha256: sha("new\n"),
    });
    expect(again.stop_reason).toBe("completed");
  });

  it("refuses with both hashes when the file changed underneath after the read", async () => {
    const env = guarded();
    await call(env, "read_file", { file_path: "app.txt" });
    await writeFile(file, "changed by someone else\n");
    const out = await call(env, "write_file", {
      file_path: "app.txt",
      content: "mine\n",
      expected_sha256: sha("one\ntwo\n"),
    });
    expect(out.stop_reason).toBe("failed");
    expect(out.output).toContain(
      `The file changed underneath: expected_sha256 ${sha("one\ntwo\n")}, but the file now has sha256 ${sha("changed by someone else\n")}.`,
    );
    expect(await readFile(file, "utf8")).toBe("changed by someone else\n");

    const edit = await call(env, "edit_file", {
      file_path: "app.txt",
      old_string: "someone",
      new_string: "me",
    });
    expect(edit.stop_reason).toBe("failed");
    expect(edit.output).toContain(
      `it had sha256 ${sha("one\ntwo\n")} when you read it, and has sha256 ${sha("changed by someone else\n")} now`,
    );
  });

  it("edit_file needs a read (or a listing) earlier in the task, and reports the new hash", async () => {
    const env = guarded();
    const unread = await call(env, "edit_file", { file_path: "app.txt", old_string: "two", new_string: "2" });
    expect(unread.output).toContain("has not been read in this task");
    await call(env, "list_files", {});
    const edited = await call(env, "edit_file", { file_path: "app.txt", old_string: "two", new_string: "2" });
    expect(edited.stop_reason).toBe("completed");
    expect(edited.output.split("\n").pop()).toBe(`[sha256: ${sha("one\n2\n")}]`);
  });

  it("a new file needs no read and no hash, but a hash for a missing file is refused", async () => {
    const env = guarded();
    const created = await call(env, "write_file", { file_path: "sub/new.txt", content: "hi\n" });
    expect(created.stop_reason).toBe("completed");
    expect(created.output.split("\n").pop()).toBe(`[sha256: ${sha("hi\n")}]`);
    const gone = await call(env, "write_file", {
      file_path: "other.txt",
      content: "x",
      expected_sha256: sha("x"),
    });
    expect(gone.output).toContain("does not exist (it was removed or moved)");
  });

  it("forgets the reads when a new task starts (a new user message)", async () => {
    const env = guarded();
    await call(env, "read_file", { file_path: "app.txt" });
    env.startTask();
    const out = await call(env, "write_file", {
      file_path: "app.txt",
      content: "x",
      expected_sha256: sha("one\ntwo\n"),
    });
    expect(out.output).toContain("has not been read in this task");
  });

  it("guards move_path and remove_path, and moves what is known with the file", async () => {
    const env = guarded();
    const unmoved = await call(env, "move_path", { source: "app.txt", destination: "moved.txt" });
    expect(unmoved.output).toContain("has not been read in this task");
    await call(env, "read_file", { file_path: "app.txt" });
    expect((await call(env, "move_path", { source: "app.txt", destination: "moved.txt" })).stop_reason).toBe(
      "completed",
    );
    const removeNoHash = await call(env, "remove_path", { path: "moved.txt" });
    expect(removeNoHash.output).toContain("expected_sha256 is required");
    const removed = await call(env, "remove_path", { path: "moved.txt", expected_sha256: sha("one\ntwo\n") });
    expect(removed.stop_reason).toBe("completed");

    await mkdir(join(ws, "dir"));
    const dirUnlisted = await call(env, "remove_path", { path: "dir" });
    expect(dirUnlisted.output).toContain("This directory has not been listed in this task");
    await call(env, "list_files", {});
    expect((await call(env, "remove_path", { path: "dir" })).stop_reason).toBe("completed");
  });
});

describe("with tools.writeGuard off (the default)", () => {
  it("the core tools behave exactly as the core contract says: no note, no read needed", async () => {
    const env = extendedEnvironment(dirs);
    const read = await call(env, "read_file", { file_path: "app.txt" });
    expect(read.output).not.toContain("sha256");
    const written = await call(env, "write_file", { file_path: "app.txt", content: "x\n" });
    expect(written.stop_reason).toBe("completed");
    expect(written.output).not.toContain("sha256");
    const schemaless = await call(env, "write_file", {
      file_path: "app.txt",
      content: "y",
      expected_sha256: sha("x\n"),
    });
    expect(schemaless.stop_reason).toBe("failed");
  });
});
