import { dirname, join, sep } from "node:path";
import type { CommandChanges, CommandFileChange, PathState } from "@penguin/protocol";
import {
  committedPaths,
  type GitSnapshot,
  identityOf,
  takeSnapshot,
  type WorkspaceSnapshot,
} from "./git-snapshot.js";
import { currentState, sameContent } from "./path-state.js";

// The files a task's commands changed, which no checkpoint covers: git's view of the workspace
// is taken before the task's first command (awaited before that command starts) and again when
// the task ends; the paths whose status or content differ, less those whose only change is the
// one the file tools made and checkpointed, are "changed by commands" and cannot be undone. A
// task that runs no command costs nothing: no git runs. Outside a git work tree, the task says
// that command changes are not tracked.

/** A path a file tool changed in the task, and the state the tool left it in (a checkpoint's). */
export interface ToolChange {
  path: string;
  after?: PathState;
}

/** The before-snapshot of one task, shared by every command of every agent of the tree. */
export class CommandWatch {
  private task: string | undefined;
  private before: Promise<{ dir: string; snapshot: WorkspaceSnapshot }> | undefined;

  /** Before a command of task `task` starts: the task's first one takes git's view of `dir`. */
  async start(task: string, dir: string): Promise<void> {
    if (this.task !== task || !this.before) {
      this.task = task;
      this.before = takeSnapshot(dir).then((snapshot) => ({ dir, snapshot }));
    }
    await this.before;
  }

  /** Whether task `task` ran a command (so its end has something to compare). */
  watching(task: string): boolean {
    return this.task === task && this.before !== undefined;
  }

  /**
   * At the end of task `task`: what its commands changed (undefined: it ran none). `entries` are
   * the task's checkpoints: a path whose state now is the one a file tool left is the tool's.
   */
  async finish(
    task: string,
    entries: readonly ToolChange[],
    skip: (path: string) => boolean,
  ): Promise<CommandChanges | undefined> {
    if (!this.watching(task) || !this.before) return undefined;
    const { dir, snapshot: before } = await this.before;
    this.task = undefined;
    this.before = undefined;
    if (before.tracked === "none") return before;
    const after = await takeSnapshot(dir);
    if (after.tracked === "none") return after;
    const changed = await changedPaths(before, after);
    const files: CommandFileChange[] = [];
    const byTool = new ToolStates(entries);
    for (const [relative, status] of changed) {
      const path = join(after.root, relative);
      if (skip(path) || (await byTool.explains(path))) continue;
      files.push({ path, status });
    }
    files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return { tracked: "git", files };
  }
}

/** The paths whose status or identity differ between the snapshots, with what happened to each. */
async function changedPaths(
  before: GitSnapshot,
  after: GitSnapshot,
): Promise<Map<string, CommandFileChange["status"]>> {
  const candidates = new Set([...before.paths.keys(), ...after.paths.keys()]);
  // A command that committed its change leaves the path clean: the commits name it.
  const committed =
    after.head !== before.head && before.head && after.head
      ? await committedPaths(after.root, before.head, after.head)
      : new Map<string, string>();
  for (const path of committed.keys()) candidates.add(path);
  const changed = new Map<string, CommandFileChange["status"]>();
  for (const path of candidates) {
    const was = before.paths.get(path);
    const now = after.paths.get(path) ?? { status: "", identity: await identityOf(join(after.root, path)) };
    if (was && was.status === now.status && was.identity === now.identity) continue;
    // Clean before and now: the commits' letter says whether it is new (A).
    const status = now.status === "" && !was ? (committed.get(path) ?? "") : now.status;
    const existedBefore = was ? was.identity !== "absent" : !isNewPath(status);
    const existsNow = now.identity !== "absent";
    changed.set(
      path,
      existedBefore && !existsNow ? "removed" : !existedBefore && existsNow ? "added" : "changed",
    );
  }
  return changed;
}

/** A path clean before whose status now says it is new: untracked, added, or where a rename or copy went. */
const isNewPath = (status: string) =>
  status.includes("?") || status.includes("A") || (/[RC]/.test(status) && !status.endsWith("<-"));

/** Whether a path's state now is the one the file tools left it in (so no command changed it since). */
class ToolStates {
  private readonly byPath: Map<string, ToolChange>;
  private readonly trees = new Map<string, boolean>();

  constructor(entries: readonly ToolChange[]) {
    this.byPath = new Map(entries.map((entry) => [entry.path, entry]));
  }

  async explains(path: string): Promise<boolean> {
    const entry = this.byPath.get(path);
    if (entry?.after) return sameContent(await currentState(path), entry.after);
    // A directory a tool created or moved (its tree hash recorded) accounts for the files below it.
    for (let above = dirname(path); above !== dirname(above); above = dirname(above)) {
      const dir = this.byPath.get(above);
      if (dir?.after?.kind !== "directory" || dir.after.tree_sha256 === undefined) continue;
      const cached = this.trees.get(above);
      if (cached !== undefined) return cached;
      const same = sameContent(await currentState(above, true), dir.after);
      this.trees.set(above, same);
      return same;
    }
    return false;
  }
}

export const isWithin = (path: string, dir: string) =>
  path === dir || path.startsWith(dir.endsWith(sep) ? dir : `${dir}${sep}`);
