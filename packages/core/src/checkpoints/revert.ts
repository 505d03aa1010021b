import { chmod, lstat, mkdir, readdir, rm, rmdir, symlink, unlink, writeFile } from "node:fs/promises";
import { dirname, sep } from "node:path";
import {
  type CommandChanges,
  changesReverted,
  type OmniMessage,
  type PathState,
  type RevertConflict,
  taskChanges,
} from "@penguin/protocol";
import type { CheckpointBook, CheckpointEntry } from "./book.js";
import { currentState, sameContent, stateHash } from "./path-state.js";
import { restorable, summarize } from "./summary.js";

// Reverting a change set: each path goes back to its state before the change set (content, mode,
// or absence), newest change first. A path changed since (its state now is not the one the change
// set left) is left alone and reported as a conflict with both hashes, unless `force`. A prior
// state that was never stored (a file over the size limit) cannot come back: always reported.
// The revert is a change set itself: it checkpoints what it overwrites, so it can be reverted.

export interface RevertOptions {
  /** Report what would be restored and what conflicts, change nothing. */
  dryRun?: boolean;
  /** Overwrite paths changed since the change set (a prior state never stored still cannot come back). */
  force?: boolean;
}

export interface RevertOutcome {
  /** The change set reverted. */
  reverted: string;
  /** The revert's own change set (absent for a dry run or when nothing was restored). */
  changeSet?: string;
  /** Paths restored (or, for a dry run, that would be). */
  restored: string[];
  conflicts: RevertConflict[];
  dryRun: boolean;
  /** When the task ran a command: what commands changed, which a revert never touches. */
  commands?: CommandChanges;
}

export async function revertChangeSet(
  book: CheckpointBook,
  target: string,
  options: RevertOptions,
  append: (record: OmniMessage) => void,
): Promise<RevertOutcome> {
  const entries = book.entries(target);
  const conflicts: RevertConflict[] = [];
  const planned: CheckpointEntry[] = [];
  for (const entry of entries) {
    const left = entry.after;
    const now = await currentState(entry.path, left?.kind === "directory" && left.tree_sha256 !== undefined);
    if (sameContent(now, entry.before) && sameMode(now, entry.before)) continue;
    if (!restorable(entry)) {
      conflicts.push({ path: entry.path, reason: "not_restorable", current_sha256: stateHash(now) });
      continue;
    }
    if (!left || !sameContent(now, left)) {
      conflicts.push({
        path: entry.path,
        reason: "changed_since",
        expected_sha256: left ? stateHash(left) : null,
        current_sha256: stateHash(now),
      });
      if (!options.force) continue;
    }
    planned.push(entry);
  }
  const restored = planned.map((entry) => entry.path);
  const byCommands = book.commandsOf(target);
  const commands = byCommands ? { commands: byCommands } : {};
  if (options.dryRun || planned.length === 0)
    return { reverted: target, restored, conflicts, dryRun: options.dryRun === true, ...commands };

  const changeSet = book.nextRevert();
  const saved = await book.checkpoint(changeSet, restored, { toolCallId: `revert-${changeSet}` });
  if (!saved.ok) throw new Error(saved.error);
  // Directories and files that existed come back outermost first; what did not exist goes, innermost first.
  const existing = planned
    .filter((entry) => entry.before.kind !== "absent")
    .sort((a, b) => depth(a.path) - depth(b.path));
  const absent = planned
    .filter((entry) => entry.before.kind === "absent")
    .sort((a, b) => depth(b.path) - depth(a.path));
  for (const entry of existing) await restore(book, entry);
  for (const entry of absent) await removeAt(entry.path);
  await book.settle(changeSet, restored);
  const record: Parameters<typeof changesReverted>[0] = {
    change_set: changeSet,
    reverted: target,
    restored,
    conflicts,
    forced: options.force === true,
  };
  append(changesReverted(record));
  book.noteRevert(changeSet, target);
  // Its own change summary, as a task's: what the revert added, changed and removed.
  const summary = await summarize(book, changeSet);
  append(taskChanges({ change_set: changeSet, files: summary.files }));
  return { reverted: target, changeSet, restored, conflicts, dryRun: false, ...commands };
}

const depth = (path: string) => path.split(sep).length;

function sameMode(a: PathState, b: PathState): boolean {
  if ((a.kind === "file" && b.kind === "file") || (a.kind === "directory" && b.kind === "directory"))
    return a.mode === b.mode;
  return true;
}

async function restore(book: CheckpointBook, entry: CheckpointEntry): Promise<void> {
  const { before, path } = entry;
  const now = await currentState(path);
  if (before.kind === "directory") {
    if (now.kind !== "directory") {
      if (now.kind !== "absent") await rm(path, { recursive: true, force: true });
      await mkdir(path, { recursive: true });
    }
    await chmod(path, before.mode);
    return;
  }
  if (now.kind === "directory") await rm(path, { recursive: true, force: true });
  else if (now.kind !== "absent") await unlink(path);
  await mkdir(dirname(path), { recursive: true });
  if (before.kind === "symlink") {
    await symlink(before.target, path);
    return;
  }
  if (before.kind !== "file") return;
  const bytes = await book.store.get(before.sha256);
  if (!bytes) throw new Error(`the checkpoint of ${path} is missing from the store`);
  await writeFile(path, bytes, { mode: before.mode });
  await chmod(path, before.mode);
}

async function removeAt(path: string): Promise<void> {
  let info: Awaited<ReturnType<typeof lstat>>;
  try {
    info = await lstat(path);
  } catch {
    return;
  }
  if (!info.isDirectory()) {
    await unlink(path);
    return;
  }
  // Its tree was checked against the change set's after-state (or the revert is forced).
  if ((await readdir(path)).length === 0) await rmdir(path);
  else await rm(path, { recursive: true, force: true });
}
