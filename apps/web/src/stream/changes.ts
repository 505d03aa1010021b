import type { OmniMessage } from "@penguin/protocol";

// The "Files changed" blocks of the timeline: each change set's summary (a task's `task_changes`,
// or a revert's own) and whether a revert that still stands took it back. Built from the records
// alone, so a reload and the live stream show the same thing.

export interface FileChangeView {
  path: string;
  status: "added" | "changed" | "moved" | "removed";
  from?: string;
  kind: "file" | "directory" | "symlink";
  linesAdded: number;
  linesRemoved: number;
  restorable: boolean;
}

/** What a task's commands changed (never undone), or why that could not be seen. */
export type CommandChangesView =
  | { tracked: "git"; files: { path: string; status: string }[] }
  | { tracked: "none"; reason: string };

export interface ChangesView {
  /** A task's number ("1") or a revert's id ("undo-1"). */
  changeSet: string;
  files: FileChangeView[];
  /** When the task ran a command. */
  commands?: CommandChangesView;
  /** For a revert: the change set it reverted. */
  reverts?: string;
  /** The revert that took this change set back and still stands. */
  revertedBy?: string;
}

/** Revert change set → the change set it reverted, from every `changes_reverted` record. */
export function revertsOf(records: readonly OmniMessage[]): Map<string, string> {
  const reverts = new Map<string, string>();
  for (const record of records) {
    if (record.type !== "event_msg" || record.origin !== undefined) continue;
    const event = record.payload as { type: string; change_set?: unknown; reverted?: unknown };
    if (event.type === "changes_reverted" && typeof event.change_set === "string")
      reverts.set(event.change_set, String(event.reverted));
  }
  return reverts;
}

/** The revert of `changeSet` that is not itself reverted, if any. */
export function standingRevert(reverts: ReadonlyMap<string, string>, changeSet: string): string | undefined {
  for (const [revert, target] of reverts) {
    if (target === changeSet && standingRevert(reverts, revert) === undefined) return revert;
  }
  return undefined;
}

/** The view of one `task_changes` event's payload. */
export function changesView(
  event: { [field: string]: unknown },
  reverts: ReadonlyMap<string, string>,
): ChangesView {
  const changeSet = String(event.change_set ?? "");
  const files = Array.isArray(event.files) ? (event.files as Record<string, unknown>[]) : [];
  const reverted = reverts.get(changeSet);
  const revertedBy = standingRevert(reverts, changeSet);
  return {
    changeSet,
    files: files.map((file) => ({
      path: String(file.path),
      status: file.status as FileChangeView["status"],
      ...(typeof file.from === "string" ? { from: file.from } : {}),
      kind: file.kind as FileChangeView["kind"],
      linesAdded: Number(file.lines_added ?? 0),
      linesRemoved: Number(file.lines_removed ?? 0),
      restorable: file.restorable !== false,
    })),
    ...(reverted !== undefined ? { reverts: reverted } : {}),
    ...(revertedBy !== undefined ? { revertedBy } : {}),
    ...commandsView(event.commands),
  };
}

function commandsView(value: unknown): { commands?: CommandChangesView } {
  if (typeof value !== "object" || value === null) return {};
  const commands = value as { tracked?: unknown; files?: unknown; reason?: unknown };
  if (commands.tracked === "none")
    return { commands: { tracked: "none", reason: String(commands.reason ?? "") } };
  if (commands.tracked !== "git" || !Array.isArray(commands.files)) return {};
  const files = (commands.files as Record<string, unknown>[]).map((file) => ({
    path: String(file.path),
    status: String(file.status),
  }));
  return { commands: { tracked: "git", files } };
}

/** "task 3" or "revert undo-1". */
export const changeSetName = (changeSet: string) =>
  changeSet.startsWith("undo-") ? `revert ${changeSet}` : `task ${changeSet}`;

/** A path as shown: relative to the workspace when inside it. */
export function shownPath(path: string, workspace: string | undefined): string {
  if (!workspace) return path;
  const prefix = workspace.endsWith("/") ? workspace : `${workspace}/`;
  return path.startsWith(prefix) ? path.slice(prefix.length) : path;
}
