import { execFile } from "node:child_process";
import { chmod, mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parsePatch } from "../../src/tools/extended/apply-patch/patch-parser.js";
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

const execFileAsync = promisify(execFile);

const patch = (...lines: string[]) => ["*** Begin Patch", ...lines, "*** End Patch"].join("\n");
async function apply(text: string, writeGuard = false) {
  const env = extendedEnvironment(dirs, { writeGuard });
  return (await runCall(env, "apply_patch", { patch: text })).complete;
}
const read = (name: string) => readFile(join(ws, name), "utf8");

/**
 * Makes a directory in which no file can be created: read-only permissions for a normal user;
 * root ignores those, so for root the immutable attribute (chattr +i). Returns the undo.
 */
async function lockDirectory(dir: string): Promise<() => Promise<void>> {
  let unlock: () => Promise<void>;
  if (process.getuid?.() === 0) {
    await execFileAsync("chattr", ["+i", dir]);
    unlock = async () => {
      await execFileAsync("chattr", ["-i", dir]);
    };
  } else {
    await chmod(dir, 0o500);
    unlock = () => chmod(dir, 0o700);
  }
  const probe = join(dir, "probe");
  const writable = await writeFile(probe, "").then(
    () => true,
    () => false,
  );
  if (writable) {
    await unlock();
    throw new Error(`cannot make ${dir} unwritable on this machine, so this test cannot run`);
  }
  return unlock;
}

describe("apply_patch", () => {
  it("adds, updates, moves and deletes files in one patch", async () => {
    await writeFile(join(ws, "main.py"), "import os\n\ndef main():\n    print('hi')\n    return 0\n");
    await writeFile(join(ws, "old.txt"), "a\nb\nc\n");
    await writeFile(join(ws, "gone.txt"), "bye\n");
    await writeFile(join(ws, "run.sh"), "echo 1\n");
    await chmod(join(ws, "run.sh"), 0o755);
    const out = await apply(
      patch(
        "*** Add File: docs/new.md",
        "+# New",
        "+text",
        "*** Update File: main.py",
        "@@ def main():",
        "-    print('hi')",
        "+    print('hello')",
        "     return 0",
        "*** Update File: old.txt",
        "*** Move to: sub/renamed.txt",
        "@@",
        " a",
        "-b",
        "+B",
        "*** Update File: run.sh",
        "*** Move to: bin/run.sh",
        "*** Delete File: gone.txt",
      ),
    );
    expect(out.stop_reason).toBe("completed");
    expect(out.output).toBe(
      [
        "Applied the patch (5 files):",
        `A ${join(ws, "docs/new.md")}`,
        `M ${join(ws, "main.py")} (+1 \u22121)`,
        `R ${join(ws, "old.txt")} -> ${join(ws, "sub/renamed.txt")} (+1 \u22121)`,
        `R ${join(ws, "run.sh")} -> ${join(ws, "bin/run.sh")}`,
        `D ${join(ws, "gone.txt")}`,
      ].join("\n"),
    );
    expect(await read("docs/new.md")).toBe("# New\ntext\n");
    expect(await read("main.py")).toBe("import os\n\ndef main():\n    print('hello')\n    return 0\n");
    expect(await read("sub/renamed.txt")).toBe("a\nB\nc\n");
    await expect(stat(join(ws, "old.txt"))).rejects.toMatchObject({ code: "ENOENT" });
    await expect(stat(join(ws, "gone.txt"))).rejects.toMatchObject({ code: "ENOENT" });
    // A moved file keeps its permission mode.
    expect((await stat(join(ws, "bin/run.sh"))).mode & 0o777).toBe(0o755);
  });

  it("applies several hunks in order and keeps CRLF line endings and a missing final newline", async () => {
    await writeFile(join(ws, "w.txt"), "x\r\ny\r\nz\r\nx\r\ny\r\nz");
    const out = await apply(
      patch(
        "*** Update File: w.txt",
        "@@",
        " x",
        "-y",
        "+Y1",
        "@@",
        " x",
        "-y",
        "+Y2",
        " z",
        "*** End of File",
      ),
    );
    expect(out.stop_reason).toBe("completed");
    expect(await read("w.txt")).toBe("x\r\nY1\r\nz\r\nx\r\nY2\r\nz");
  });

  it("validates everything first: a hunk that does not match leaves every file as it was", async () => {
    await writeFile(join(ws, "a.txt"), "alpha\n");
    await writeFile(join(ws, "b.txt"), "beta\n    gamma\n");
    const out = await apply(
      patch(
        "*** Update File: a.txt",
        "-alpha",
        "+ALPHA",
        "*** Add File: c.txt",
        "+new",
        "*** Update File: b.txt",
        "@@",
        "-  gamma",
        "+  GAMMA",
      ),
    );
    expect(out.stop_reason).toBe("failed");
    expect(out.output).toBe(
      `hunk 1 (patch line 8) of ${join(ws, "b.txt")}: its context and removed lines were not found. The first of them is "  gamma". Lines that differ only in whitespace start at line 2: copy them exactly. No file was changed.`,
    );
    expect(await read("a.txt")).toBe("alpha\n");
    expect(await read("b.txt")).toBe("beta\n    gamma\n");
    await expect(stat(join(ws, "c.txt"))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("undoes every change already written when a write fails halfway", async () => {
    await writeFile(join(ws, "a.txt"), "alpha\n");
    await writeFile(join(ws, "doomed.txt"), "keep me\n");
    // A directory no file can be created in: a.txt is rewritten and doomed.txt deleted before the
    // patch reaches locked/new.txt, and everything must be put back.
    const locked = join(ws, "locked");
    await mkdir(locked);
    const unlock = await lockDirectory(locked);
    try {
      const out = await apply(
        patch(
          "*** Update File: a.txt",
          "-alpha",
          "+ALPHA",
          "*** Delete File: doomed.txt",
          "*** Add File: fresh/dir/ok.txt",
          "+ok",
          "*** Add File: locked/new.txt",
          "+x",
        ),
      );
      expect(out.stop_reason).toBe("failed");
      expect(out.output).toContain(`The patch failed while writing: `);
      expect(out.output).toContain(join(locked, "new.txt"));
      expect(out.output).toContain("Every change already made was undone: no file was changed.");
    } finally {
      await unlock();
    }
    expect(await read("a.txt")).toBe("alpha\n");
    expect(await read("doomed.txt")).toBe("keep me\n");
    await expect(stat(join(ws, "fresh"))).rejects.toMatchObject({ code: "ENOENT" });
    await expect(stat(join(locked, "new.txt"))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("refuses to add a file that exists, to move onto one, and to change a missing file", async () => {
    await writeFile(join(ws, "here.txt"), "x\n");
    await writeFile(join(ws, "there.txt"), "y\n");
    expect((await apply(patch("*** Add File: here.txt", "+z"))).output).toContain(
      "it already exists. Change it with Update File.",
    );
    expect((await apply(patch("*** Update File: here.txt", "*** Move to: there.txt"))).output).toContain(
      "it already exists, and apply_patch never overwrites",
    );
    expect((await apply(patch("*** Delete File: nope.txt"))).output).toContain(
      "does not exist, so it cannot be deleted",
    );
    expect(await read("there.txt")).toBe("y\n");
  });

  it("needs the files it changes to have been read when the write guard is on", async () => {
    await writeFile(join(ws, "a.txt"), "alpha\n");
    const out = await apply(patch("*** Update File: a.txt", "-alpha", "+beta"), true);
    expect(out.output).toContain("Refused by the write guard: apply_patch did not update");
    expect(await read("a.txt")).toBe("alpha\n");
  });
});

describe("the patch envelope", () => {
  it("names the line of each mistake", () => {
    expect(parsePatch("*** Update File: a\n-x\n+y\n*** End Patch")).toEqual({
      ok: false,
      error: 'The patch must start with the line "*** Begin Patch".',
    });
    expect(parsePatch("*** Begin Patch\n*** Add File: a\n+x")).toEqual({
      ok: false,
      error: 'The patch must end with the line "*** End Patch".',
    });
    expect(parsePatch(patch("*** Add File: a", "no plus"))).toEqual({
      ok: false,
      error: 'Patch line 3: every line of an added file starts with "+" (in Add File: a); got "no plus".',
    });
    expect(parsePatch(patch("*** Update File: a", "@@", " same"))).toMatchObject({
      ok: false,
      error: expect.stringContaining("Patch line 3: a hunk changes nothing"),
    });
    expect(parsePatch(patch("*** Rename File: a"))).toMatchObject({
      ok: false,
      error: expect.stringContaining("Patch line 2: expected"),
    });
    expect(parsePatch(patch())).toEqual({ ok: false, error: "The patch is empty: it changes no file." });
  });

  it("reads add, update with move and hunks, and delete", () => {
    const parsed = parsePatch(
      patch(
        "*** Add File: n",
        "+1",
        "*** Update File: u",
        "*** Move to: v",
        "@@ ctx",
        " c",
        "-o",
        "+n",
        "",
        "*** Delete File: d",
      ),
    );
    expect(parsed).toEqual({
      ok: true,
      operations: [
        { kind: "add", path: "n", content: "1\n", patchLine: 2 },
        {
          kind: "update",
          path: "u",
          moveTo: "v",
          patchLine: 4,
          hunks: [
            {
              anchor: "ctx",
              atEnd: false,
              patchLine: 6,
              lines: [
                { op: " ", text: "c" },
                { op: "-", text: "o" },
                { op: "+", text: "n" },
                { op: " ", text: "" },
              ],
            },
          ],
        },
        { kind: "delete", path: "d", patchLine: 11 },
      ],
    });
  });
});

describe("move_path, make_directory, remove_path", () => {
  const run = async (name: string, args: Record<string, unknown>) =>
    (await runCall(extendedEnvironment(dirs), name, args)).complete;

  it("move_path never overwrites and creates missing parents", async () => {
    await writeFile(join(ws, "a.txt"), "a");
    await writeFile(join(ws, "b.txt"), "b");
    const refused = await run("move_path", { source: "a.txt", destination: "b.txt" });
    expect(refused.stop_reason).toBe("failed");
    expect(refused.output).toContain("already exists; move_path never overwrites");
    expect(await read("b.txt")).toBe("b");
    const moved = await run("move_path", { source: "a.txt", destination: "x/y/a.txt" });
    expect(moved.output).toBe(`Moved file ${join(ws, "a.txt")} to ${join(ws, "x/y/a.txt")}.`);
    expect(await read("x/y/a.txt")).toBe("a");
    await mkdir(join(ws, "d"));
    expect((await run("move_path", { source: "d", destination: "d/inner" })).output).toContain("into itself");
  });

  it("make_directory creates parents, succeeds on an existing directory, and fails on a file", async () => {
    expect((await run("make_directory", { path: "p/q/r" })).output).toBe(
      `Created directory ${join(ws, "p/q/r")}.`,
    );
    expect((await stat(join(ws, "p/q/r"))).isDirectory()).toBe(true);
    const again = await run("make_directory", { path: "p/q/r" });
    expect(again.stop_reason).toBe("completed");
    expect(again.output).toBe(`${join(ws, "p/q/r")} already exists (a directory).`);
    await writeFile(join(ws, "f"), "");
    expect((await run("make_directory", { path: "f" })).stop_reason).toBe("failed");
  });

  it("remove_path needs recursive for a non-empty directory and removes a symlink as a link", async () => {
    const { symlink } = await import("node:fs/promises");
    await mkdir(join(ws, "full"));
    await writeFile(join(ws, "full", "f.txt"), "x");
    const refused = await run("remove_path", { path: "full" });
    expect(refused.output).toContain("not empty; pass recursive: true");
    expect((await run("remove_path", { path: "full", recursive: true })).stop_reason).toBe("completed");
    await expect(stat(join(ws, "full"))).rejects.toMatchObject({ code: "ENOENT" });

    await mkdir(join(ws, "target"));
    await writeFile(join(ws, "target", "keep.txt"), "keep");
    await symlink(join(ws, "target"), join(ws, "link"));
    const unlinked = await run("remove_path", { path: "link", recursive: true });
    expect(unlinked.output).toBe(`Removed symlink (its target was not touched) ${join(ws, "link")}.`);
    expect(await read("target/keep.txt")).toBe("keep");
  });

  it("remove_path refuses the workspace root, its ancestors and /", async () => {
    for (const path of [".", ws, "..", "/"]) {
      const out = await run("remove_path", { path, recursive: true });
      expect(out.stop_reason).toBe("failed");
      expect(out.output).toMatch(
        /^Refused: .* is (the workspace root|an ancestor of the workspace|the file system root); remove_path never removes it\.$/,
      );
    }
    expect((await stat(ws)).isDirectory()).toBe(true);
  });
});
