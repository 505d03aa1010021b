import type { CommandChanges, FileChange, PathState } from "@penguin/protocol";
import type { CheckpointBook, CheckpointEntry } from "./book.js";
import { type LineCounts, lineCounts } from "./line-counts.js";

// The change summary of a change set: the paths it added, changed, moved and removed, with line
// counts (from the `diff` package), and on request a unified diff of each text file.

export interface ChangeSummary {
  changeSet: string;
  files: FileChange[];
  /** The unified diff of every text file (when asked for). */
  diff?: string;
  /** When the task ran a command: what commands changed outside the file tools (never undone). */
  commands?: CommandChanges;
}

const kindOf = (state: PathState): FileChange["kind"] =>
  state.kind === "directory" ? "directory" : state.kind === "symlink" ? "symlink" : "file";

/** What `changeSet` changed; a path it changed back to how it was is left out. */
export async function summarize(
  book: CheckpointBook,
  changeSet: string,
  options: { diff?: boolean } = {},
): Promise<ChangeSummary> {
  if (options.diff !== true) {
    await book.countLines(changeSet);
    return summaryNow(book, changeSet);
  }
  const counts = new Map<string, LineCounts>();
  for (const entry of book.entries(changeSet)) {
    if (!entry.after || !changed(entry.before, entry.after) || shownState(entry).kind !== "file") continue;
    counts.set(entry.path, await lineCounts(book.store, entry.path, entry.before, entry.after, true));
  }
  const summary = buildSummary(book, changeSet, (entry) => counts.get(entry.path));
  summary.diff = [...counts.values()].flatMap((count) => (count.diff ? [count.diff] : [])).join("\n");
  return summary;
}

/**
 * The summary of a change set from what the book holds now (line counts taken by `countLines`),
 * without reading anything: what a task's end records.
 */
export function summaryNow(book: CheckpointBook, changeSet: string): ChangeSummary {
  return buildSummary(book, changeSet, (entry) => entry.lines);
}

const shownState = (entry: CheckpointEntry): PathState =>
  !entry.after || entry.after.kind === "absent" ? entry.before : entry.after;

function buildSummary(
  book: CheckpointBook,
  changeSet: string,
  countsOf: (entry: CheckpointEntry) => LineCounts | undefined,
): ChangeSummary {
  const entries = book
    .entries(changeSet)
    .filter((entry) => entry.after && changed(entry.before, entry.after));
  const files: FileChange[] = [];
  // A file removed from one path and added at another with the same content was moved.
  const movedFrom = new Map<string, string>();
  const removed = entries.filter((entry) => entry.before.kind === "file" && entry.after?.kind === "absent");
  for (const entry of entries) {
    const { before, after } = entry;
    if (before.kind !== "absent" || after?.kind !== "file") continue;
    const taken = new Set(movedFrom.values());
    const source = removed.find(
      (gone) => gone.before.kind === "file" && gone.before.sha256 === after.sha256 && !taken.has(gone.path),
    );
    if (source) movedFrom.set(entry.path, source.path);
  }
  const moveSources = new Set(movedFrom.values());
  for (const entry of entries) {
    if (moveSources.has(entry.path)) continue;
    const after = entry.after as PathState;
    const from = movedFrom.get(entry.path);
    const status: FileChange["status"] = from
      ? "moved"
      : entry.before.kind === "absent"
        ? "added"
        : after.kind === "absent"
          ? "removed"
          : "changed";
    const counts = countsOf(entry);
    const change: FileChange = {
      path: entry.path,
      status,
      kind: kindOf(shownState(entry)),
      lines_added: counts?.added ?? 0,
      lines_removed: counts?.removed ?? 0,
      restorable: restorable(entry),
    };
    if (from) change.from = from;
    files.push(change);
  }
  const commands = book.commandsOf(changeSet);
  return { changeSet, files, ...(commands ? { commands } : {}) };
}

/** Whether the prior state is known whole (a file over the size limit's is not). */
export function restorable(entry: CheckpointEntry): boolean {
  return entry.before.kind !== "file" || entry.before.stored;
}

function changed(before: PathState, after: PathState): boolean {
  if (before.kind !== after.kind) return true;
  if (before.kind === "file" && after.kind === "file")
    return before.sha256 !== after.sha256 || before.mode !== after.mode;
  if (before.kind === "symlink" && after.kind === "symlink") return before.target !== after.target;
  if (before.kind === "directory" && after.kind === "directory") return before.mode !== after.mode;
  return false;
}
