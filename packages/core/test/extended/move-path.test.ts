import { existsSync } from "node:fs";
import {
  chmod,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  rm,
  stat,
  symlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { moveWithoutOverwrite } from "../../src/tools/extended/move-no-overwrite.js";
import { extendedEnvironment, runCall, type TempDirs, workspace } from "./support.js";

// "Renames or moves a file or directory. It never overwrites, and it creates missing parent
// directories of the destination."

let dirs: TempDirs;
let ws: string;
beforeEach(async () => {
  dirs = await workspace();
  ws = dirs.workspaceDir;
});
afterEach(async () => {
  await dirs.cleanup();
});

const at = (name: string) => join(ws, name);
const read = (name: string) => readFile(at(name), "utf8");
const move = async (source: string, destination: string) =>
  (await runCall(extendedEnvironment(dirs), "move_path", { source, destination })).complete;
const refusal = (destination: string) =>
  `${destination} already exists; move_path never overwrites. Remove it first, or pick another destination.`;

describe("move_path never replaces an existing destination", () => {
  it("an existing file: both files stay as they were", async () => {
    await writeFile(at("a.txt"), "source\n");
    await writeFile(at("b.txt"), "destination\n");
    const out = await move("a.txt", "b.txt");
    expect(out.stop_reason).toBe("failed");
    expect(out.output).toBe(refusal(at("b.txt")));
    expect(await read("a.txt")).toBe("source\n");
    expect(await read("b.txt")).toBe("destination\n");
  });

  it("an empty directory, which rename(2) alone would replace with a directory", async () => {
    await mkdir(at("src/inner"), { recursive: true });
    await writeFile(at("src/inner/f.txt"), "f\n");
    await mkdir(at("empty"));
    const out = await move("src", "empty");
    expect(out.stop_reason).toBe("failed");
    expect(out.output).toBe(refusal(at("empty")));
    expect(await readdir(at("empty"))).toEqual([]);
    expect(await read("src/inner/f.txt")).toBe("f\n");
  });

  it("a non-empty directory, for a file or a directory source", async () => {
    await mkdir(at("full"));
    await writeFile(at("full/keep.txt"), "keep\n");
    await writeFile(at("file.txt"), "file\n");
    await mkdir(at("dir"));
    for (const source of ["file.txt", "dir"]) {
      const out = await move(source, "full");
      expect(out.stop_reason).toBe("failed");
      expect(out.output).toBe(refusal(at("full")));
    }
    expect(await readdir(at("full"))).toEqual(["keep.txt"]);
    expect(await read("file.txt")).toBe("file\n");
    expect((await stat(at("dir"))).isDirectory()).toBe(true);
  });

  it("a symlink at the destination is not followed or replaced", async () => {
    await writeFile(at("a.txt"), "source\n");
    await symlink("nowhere", at("dangling"));
    const out = await move("a.txt", "dangling");
    expect(out.output).toBe(refusal(at("dangling")));
    expect(await readlink(at("dangling"))).toBe("nowhere");
    expect(existsSync(at("nowhere"))).toBe(false);
    expect(await read("a.txt")).toBe("source\n");
  });
});

describe("move_path moves", () => {
  it("a symlink as the link itself, leaving its target alone (a dangling one too)", async () => {
    await writeFile(at("target.txt"), "target\n");
    await symlink("target.txt", at("link"));
    await symlink("missing.txt", at("dangling"));
    const out = await move("link", "sub/link");
    expect(out.output).toBe(`Moved symlink ${at("link")} to ${at("sub/link")}.`);
    expect((await lstat(at("sub/link"))).isSymbolicLink()).toBe(true);
    expect(await readlink(at("sub/link"))).toBe("target.txt");
    expect(existsSync(at("link"))).toBe(false);
    expect(await read("target.txt")).toBe("target\n");
    expect((await move("dangling", "dangling2")).stop_reason).toBe("completed");
    expect(await readlink(at("dangling2"))).toBe("missing.txt");
  });

  it("a directory tree, with its files, modes and links, to a new parent", async () => {
    await mkdir(at("tree/a/b"), { recursive: true });
    await writeFile(at("tree/top.txt"), "top\n");
    await writeFile(at("tree/a/b/deep.sh"), "echo deep\n");
    await chmod(at("tree/a/b/deep.sh"), 0o755);
    await symlink("../top.txt", at("tree/a/up"));
    const out = await move("tree", "x/y/tree");
    expect(out.output).toBe(`Moved directory ${at("tree")} to ${at("x/y/tree")}.`);
    expect(existsSync(at("tree"))).toBe(false);
    expect(await read("x/y/tree/top.txt")).toBe("top\n");
    expect(await read("x/y/tree/a/b/deep.sh")).toBe("echo deep\n");
    expect((await stat(at("x/y/tree/a/b/deep.sh"))).mode & 0o777).toBe(0o755);
    expect(await readlink(at("x/y/tree/a/up"))).toBe("../top.txt");
    expect(await read("x/y/tree/a/up")).toBe("top\n");
  });

  it("a file, keeping its content and mode, and refuses a missing source clearly", async () => {
    await writeFile(at("run.sh"), "echo hi\n");
    await chmod(at("run.sh"), 0o750);
    expect((await move("run.sh", "bin/run.sh")).stop_reason).toBe("completed");
    expect(await read("bin/run.sh")).toBe("echo hi\n");
    expect((await stat(at("bin/run.sh"))).mode & 0o777).toBe(0o750);
    expect(existsSync(at("run.sh"))).toBe(false);
    const missing = await move("run.sh", "again.sh");
    expect(missing.stop_reason).toBe("failed");
    expect(missing.output).toMatch(new RegExp(`^Not found: ${at("run.sh")}\\.`));
  });
});

// The move itself, without move_path's early check: what happens when the destination appears
// after that check (created by another process) and before the move.
describe("moveWithoutOverwrite", () => {
  it("refuses a file onto an existing file, directory or symlink, changing nothing", async () => {
    await writeFile(at("a.txt"), "source\n");
    await writeFile(at("file"), "file\n");
    await mkdir(at("dir"));
    await symlink("a.txt", at("link"));
    for (const destination of ["file", "dir", "link"]) {
      expect(await moveWithoutOverwrite(at("a.txt"), at(destination), false)).toEqual({
        ok: false,
        reason: "exists",
      });
    }
    expect(await read("a.txt")).toBe("source\n");
    expect(await read("file")).toBe("file\n");
    expect(await readdir(at("dir"))).toEqual([]);
    expect(await readlink(at("link"))).toBe("a.txt");
  });

  it("refuses a directory onto an empty directory or a file, changing nothing", async () => {
    await mkdir(at("src"));
    await writeFile(at("src/f.txt"), "f\n");
    await mkdir(at("empty"));
    await writeFile(at("file"), "file\n");
    for (const destination of ["empty", "file"]) {
      expect(await moveWithoutOverwrite(at("src"), at(destination), true)).toEqual({
        ok: false,
        reason: "exists",
      });
    }
    expect(await readdir(at("empty"))).toEqual([]);
    expect(await read("file")).toBe("file\n");
    expect(await read("src/f.txt")).toBe("f\n");
  });

  it("leaves what someone wrote into a directory's reserved destination, and moves nothing", async () => {
    await mkdir(at("src"));
    await writeFile(at("src/f.txt"), "f\n");
    const outcome = await moveWithoutOverwrite(at("src"), at("dest"), true, {
      onReserved: () => writeFile(at("dest/theirs.txt"), "theirs\n"),
    });
    expect(outcome).toEqual({ ok: false, reason: "appeared" });
    expect(await readdir(at("dest"))).toEqual(["theirs.txt"]);
    expect(await read("src/f.txt")).toBe("f\n");
  });

  it("removes its own reservation again when the rename fails for another reason", async () => {
    await mkdir(at("src"));
    const outcome = moveWithoutOverwrite(at("src"), at("dest"), true, {
      // The source disappears after the reservation: rename fails with ENOENT.
      onReserved: () => rm(at("src"), { recursive: true }),
    });
    await expect(outcome).rejects.toMatchObject({ code: "ENOENT" });
    expect(existsSync(at("dest"))).toBe(false);
  });

  it("moves a symlink itself, not the file it points to", async () => {
    await writeFile(at("target.txt"), "target\n");
    await symlink("target.txt", at("link"));
    expect(await moveWithoutOverwrite(at("link"), at("moved"), false)).toEqual({ ok: true });
    expect(await readlink(at("moved"))).toBe("target.txt");
    expect((await stat(at("target.txt"))).nlink).toBe(1);
    expect(existsSync(at("link"))).toBe(false);
  });
});

describe("move_path across file systems", () => {
  // /dev/shm is a tmpfs on Linux, another device than the temp dir on most machines; where it is
  // the same device (or missing), the same moves run as renames and must behave the same.
  let other: string;
  beforeEach(async () => {
    const base = existsSync("/dev/shm") ? "/dev/shm" : tmpdir();
    other = await mkdtemp(join(base, "penguin-move-"));
  });
  afterEach(async () => {
    await rm(other, { recursive: true, force: true });
  });

  it("moves a file and a directory tree, and never overwrites there either", async () => {
    await writeFile(at("a.txt"), "a\n");
    await mkdir(at("tree/sub"), { recursive: true });
    await writeFile(at("tree/sub/f.txt"), "f\n");
    await symlink("sub/f.txt", at("tree/link"));
    expect((await move("a.txt", join(other, "a.txt"))).stop_reason).toBe("completed");
    expect(await readFile(join(other, "a.txt"), "utf8")).toBe("a\n");
    expect(existsSync(at("a.txt"))).toBe(false);
    expect((await move("tree", join(other, "deep/tree"))).stop_reason).toBe("completed");
    expect(await readFile(join(other, "deep/tree/sub/f.txt"), "utf8")).toBe("f\n");
    expect(await readlink(join(other, "deep/tree/link"))).toBe("sub/f.txt");
    expect(existsSync(at("tree"))).toBe(false);

    await writeFile(at("b.txt"), "b\n");
    await writeFile(join(other, "b.txt"), "theirs\n");
    expect(await moveWithoutOverwrite(at("b.txt"), join(other, "b.txt"), false)).toEqual({
      ok: false,
      reason: "exists",
    });
    expect(await readFile(join(other, "b.txt"), "utf8")).toBe("theirs\n");
    expect(await read("b.txt")).toBe("b\n");
  });
});
