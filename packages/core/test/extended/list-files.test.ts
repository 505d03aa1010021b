import { chmod, mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
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

async function list(args: Record<string, unknown>, limits: { maxEntries?: number; maxDepth?: number } = {}) {
  const env = extendedEnvironment(dirs, { limits: { list_files: limits } });
  return (await runCall(env, "list_files", args)).complete;
}

describe("list_files", () => {
  it("lists one directory with type, mode and size of each entry, hiding nothing", async () => {
    await writeFile(join(ws, "README.md"), "hello\n");
    await writeFile(join(ws, ".env"), "SECRET=1\n");
    await mkdir(join(ws, ".git"));
    await writeFile(join(ws, ".git", "HEAD"), "ref: refs/heads/main\n");
    await mkdir(join(ws, "src"));
    await writeFile(join(ws, "run.sh"), "#!/bin/sh\n");
    await chmod(join(ws, "run.sh"), 0o755);
    await chmod(join(ws, "README.md"), 0o640);
    await chmod(join(ws, ".env"), 0o600);

    const out = await list({});
    expect(out.stop_reason).toBe("completed");
    const lines = out.output.split("\n");
    expect(lines[0]).toBe(`${ws}:`);
    expect(lines).toContainEqual(expect.stringMatching(/^file +0600 +9 {2}\.env$/));
    expect(lines).toContainEqual(expect.stringMatching(/^dir +0\d{3} +\d+ {2}\.git\/$/));
    expect(lines).toContainEqual(expect.stringMatching(/^file +0640 +6 {2}README\.md$/));
    expect(lines).toContainEqual(expect.stringMatching(/^file +0755 +10 {2}run\.sh$/));
    expect(lines).toContainEqual(expect.stringMatching(/^dir .* src\/$/));
    // Not recursive: the contents of .git are not listed.
    expect(out.output).not.toContain("HEAD");
    expect(lines[lines.length - 1]).toBe("[5 entries; truncated: false]");
  });

  it("reports symlinks with their targets and never follows them, so link loops end", async () => {
    await mkdir(join(ws, "d"));
    await writeFile(join(ws, "d", "f.txt"), "x");
    await symlink("loop-b", join(ws, "loop-a"));
    await symlink("loop-a", join(ws, "loop-b"));
    await symlink("..", join(ws, "d", "up"));
    await symlink(ws, join(ws, "self"));

    const out = await list({ recursive: true, max_depth: 50 }, { maxDepth: 50 });
    expect(out.stop_reason).toBe("completed");
    const lines = out.output.split("\n");
    expect(lines).toContainEqual(expect.stringMatching(/^symlink .* {2}loop-a -> loop-b$/));
    expect(lines).toContainEqual(expect.stringMatching(/^symlink .* {2}loop-b -> loop-a$/));
    expect(lines).toContainEqual(expect.stringMatching(/^symlink .* {2}d\/up -> \.\.$/));
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^symlink .*  self -> ${ws}$`)));
    expect(out.output).not.toContain("d/up/");
    expect(lines[lines.length - 1]).toBe("[6 entries; truncated: false]");
  });

  it("lists a tree in tree order with recursive, and flags what the depth limit left out", async () => {
    await mkdir(join(ws, "a", "b", "c"), { recursive: true });
    await writeFile(join(ws, "a", "b", "c", "deep.txt"), "x");
    await writeFile(join(ws, "a", "top.txt"), "x");
    await writeFile(join(ws, "z.txt"), "x");

    const out = await list({ recursive: true, max_depth: 2 });
    const names = out.output
      .split("\n")
      .slice(1, -1)
      .map((line) => line.split("  ").pop());
    expect(names).toEqual(["a/", "a/b/", "a/top.txt", "z.txt"]);
    expect(out.output.split("\n").pop()).toBe(
      "[4 entries shown; truncated: true: 1 directory at depth 2 not expanded. List a subdirectory to see more.]",
    );

    const whole = await list({ recursive: true });
    expect(whole.output).toContain("a/b/c/deep.txt");
    expect(whole.output.split("\n").pop()).toBe("[6 entries; truncated: false]");
  });

  it("never descends deeper than the configured maxDepth, whatever the call asks", async () => {
    await mkdir(join(ws, "a", "b", "c"), { recursive: true });
    const out = await list({ recursive: true, max_depth: 10 }, { maxDepth: 1 });
    expect(out.output.split("\n")[0]).toBe(`${ws} (recursive, depth 1):`);
    expect(out.output).not.toContain("a/b/");
    expect(out.output).toContain("truncated: true");
  });

  it("stops at the entry limit with truncated: true", async () => {
    for (let i = 0; i < 30; i += 1) await writeFile(join(ws, `f${String(i).padStart(2, "0")}.txt`), "x");
    const out = await list({}, { maxEntries: 10 });
    const lines = out.output.split("\n");
    expect(lines.slice(1, -1)).toHaveLength(10);
    expect(lines[lines.length - 1]).toBe(
      "[10 entries shown; truncated: true: the entry limit (10) was reached. List a subdirectory to see more.]",
    );
  });

  it("says a directory is empty, describes a file given as the path, and hints at a missing one", async () => {
    await mkdir(join(ws, "empty"));
    await writeFile(join(ws, "notes.txt"), "abc");
    expect((await list({ path: "empty" })).output).toBe(
      `${join(ws, "empty")}:\n(empty directory)\n[0 entries; truncated: false]`,
    );
    const file = await list({ path: "notes.txt" });
    expect(file.output).toMatch(
      new RegExp(`^file +0\\d{3} 3  ${join(ws, "notes.txt")}\\n\\[1 entry; truncated: false\\]$`),
    );
    const missing = await list({ path: "note.txt" });
    expect(missing.stop_reason).toBe("failed");
    expect(missing.output).toContain(`Did you mean ${join(ws, "notes.txt")}?`);
  });
});
