import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { takeSnapshot } from "../../src/checkpoints/git-snapshot.js";

// Whether a workspace is in a git work tree decides whether a task's commands are tracked. Where
// no `.git` is in the workspace or a folder above it, git is not started to say so.

const roots: string[] = [];
const savedPath = process.env.PATH;
afterEach(() => {
  process.env.PATH = savedPath;
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function tempRoot(): string {
  const root = mkdtempSync(join(tmpdir(), "penguin-git-discovery-"));
  roots.push(root);
  return root;
}

/** A PATH on which no git can be found: a started git would report itself missing. */
function withoutGitOnPath(): void {
  process.env.PATH = tempRoot();
}

describe("finding the workspace's work tree", () => {
  it("without a .git in the workspace or above, says it is no repository without starting git", async () => {
    const workspace = join(tempRoot(), "a", "b");
    mkdirSync(workspace, { recursive: true });
    withoutGitOnPath();
    expect(await takeSnapshot(workspace)).toEqual({
      tracked: "none",
      reason: "the workspace is not a git repository",
    });
  });

  it("with a .git file above (a linked work tree or submodule), asks git", async () => {
    const root = tempRoot();
    writeFileSync(join(root, ".git"), "gitdir: /nowhere\n");
    const workspace = join(root, "sub");
    mkdirSync(workspace);
    withoutGitOnPath();
    expect(await takeSnapshot(workspace)).toEqual({ tracked: "none", reason: "git is not installed" });
  });

  it("in a folder of a repository, takes git's view from the repository's root", async () => {
    const root = tempRoot();
    execFileSync("git", ["init", "-q", root], { env: { PATH: process.env.PATH, HOME: root } });
    const workspace = join(root, "pkg");
    mkdirSync(workspace);
    writeFileSync(join(workspace, "new.txt"), "x\n");
    const snapshot = await takeSnapshot(workspace);
    expect(snapshot.tracked).toBe("git");
    if (snapshot.tracked !== "git") return;
    expect(snapshot.root).toBe(root);
    expect([...snapshot.paths.keys()]).toEqual(["pkg/new.txt"]);
  });
});
