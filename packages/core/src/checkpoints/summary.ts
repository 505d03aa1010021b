import type { FileChange, PathState } from "@penguin/protocol";
import { countChanges, formatHunks, lineDiff } from "../tools/files/unified-diff.js";
import type { CheckpointBook, CheckpointEntry } from "./book.js";

// The change summary of a change set: the paths it added, changed, moved and removed, with line
// counts (from the `diff` package), and on request a unified diff of each text file.

export interface ChangeSummary {
  changeSet: string;
  files: FileChange[];
  /** The unified diff of every text file (when asked for). */
  diff?: string;
}

type Content = { text: string } | { binary: true } | { unknown: true };

const kindOf = (state: PathState): FileChange["kind"] =>
  state.kind === "directory" ? "directory" : state.kind === "symlink" ? "symlink" : "file";

/** What `changeSet` changed; a path it changed back to how it was is left out. */
export async function summarize(
  book: CheckpointBook,
  changeSet: string,
  options: { diff?: boolean } = {},
): Promise<ChangeSummary> {
  const entries = book
    .entries(changeSet)
    .filter((entry) => entry.after && changed(entry.before, entry.after));
  const files: FileChange[] = [];
  const diffs: string[] = [];
  // A file removed from one path and added at another with the same content was moved.
  const movedFrom = new Map<string, string>();
  const removed = entries.filter((entry) => entry.before.kind === "file" && entry.after?.kind === "absent");
  for (const entry of entries) {
    const { before, after } = entry;
    if (before.kind !== "absent" || after?.kind !== "file") continue;
    const source = removed.find(
      (gone) =>
        gone.before.kind === "file" &&
        gone.before.sha256 === after.sha256 &&
        ![...movedFrom.values()].includes(gone.path),
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
    const shown = after.kind === "absent" ? entry.before : after;
    const change: FileChange = {
      path: entry.path,
      status,
      kind: kindOf(shown),
      lines_added: 0,
      lines_removed: 0,
      restorable: restorable(entry),
    };
    if (from) change.from = from;
    if (shown.kind === "file") {
      const counted = await lineChanges(book, entry, options.diff === true);
      change.lines_added = counted.added;
      change.lines_removed = counted.removed;
      if (counted.diff) diffs.push(counted.diff);
    }
    files.push(change);
  }
  const summary: ChangeSummary = { changeSet, files };
  if (options.diff) summary.diff = diffs.join("\n");
  return summary;
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

async function lineChanges(
  book: CheckpointBook,
  entry: CheckpointEntry,
  withDiff: boolean,
): Promise<{ added: number; removed: number; diff?: string }> {
  const before = await contentOf(book, entry.before);
  const after = await contentOf(book, entry.after ?? { kind: "absent" });
  if ("binary" in before || "binary" in after) {
    return { added: 0, removed: 0, ...(withDiff ? { diff: `Binary file ${entry.path} changed` } : {}) };
  }
  if ("unknown" in before || "unknown" in after) return { added: 0, removed: 0 };
  const patch = lineDiff(entry.path, before.text, after.text);
  if (!patch) return { added: 0, removed: 0 };
  const { added, removed } = countChanges(patch);
  return { added, removed, ...(withDiff ? { diff: formatHunks(patch) } : {}) };
}

async function contentOf(book: CheckpointBook, state: PathState): Promise<Content> {
  if (state.kind !== "file") return { text: "" };
  const bytes = state.stored ? await book.store.get(state.sha256) : undefined;
  if (!bytes) return { unknown: true };
  if (bytes.subarray(0, 8000).includes(0)) return { binary: true };
  return { text: bytes.toString("utf8") };
}
