import { type ChangeSummary, openSessionChanges, type SessionChanges } from "@penguin/core";
import { isPayload, type OmniMessage } from "@penguin/protocol";
import type { z } from "zod";
import type { ChangeSetRowSchema } from "./changes-schemas.js";
import { traceRecords } from "./trace-reads.js";

// A session's change sets as GET /api/sessions/:id/changes lists them: read from its trace (the
// checkpoints the file tools and the reverts recorded), whether the server holds the session
// open or not. Paths come from the trace only: the client names a change set, never a path.

export type ChangeSetRow = z.infer<typeof ChangeSetRowSchema>;

/** What a change set's summary says: its files, and what its commands changed. */
type Summary = Pick<ChangeSummary, "files" | "commands">;

interface Recorded {
  /** The summary recorded for each change set (the newest one counts). */
  summaries: Map<string, Summary>;
  /** Change sets in the order the trace first names them (a checkpoint, or a summary). */
  order: string[];
}

function recordedOf(records: readonly OmniMessage[]): Recorded {
  const summaries = new Map<string, Summary>();
  const seen = new Set<string>();
  for (const record of records) {
    if (!isPayload(record, "task_changes") && !isPayload(record, "file_checkpoint")) continue;
    seen.add(record.payload.change_set);
    if (isPayload(record, "task_changes")) {
      const { files, commands } = record.payload;
      summaries.set(record.payload.change_set, { files, ...(commands ? { commands } : {}) });
    }
  }
  return { summaries, order: [...seen] };
}

function rowOf(changes: SessionChanges, changeSet: string, summary: Summary): ChangeSetRow {
  const reverts = changes.revertOf(changeSet);
  const revertedBy = changes.revertedBy(changeSet);
  return {
    change_set: changeSet,
    kind: changeSet.startsWith("undo-") ? "revert" : "task",
    ...(reverts !== undefined ? { reverts } : {}),
    ...(revertedBy !== undefined ? { reverted_by: revertedBy } : {}),
    files: summary.files.map((file) => ({
      path: file.path,
      status: file.status,
      ...(file.from !== undefined ? { from: file.from } : {}),
      kind: file.kind,
      lines_added: file.lines_added,
      lines_removed: file.lines_removed,
      restorable: file.restorable,
    })),
    ...(summary.commands ? { commands: summary.commands } : {}),
  };
}

/** Opens the session's checkpoints from its trace; undefined when it has no trace. */
export function openChanges(dataRoot: string, sessionId: string): SessionChanges | undefined {
  try {
    return openSessionChanges(dataRoot, sessionId);
  } catch {
    return undefined;
  }
}

/**
 * Every change set of the session, newest first, with its summary: the one recorded in the trace
 * (a task's end, a revert), else one computed from the checkpoints (a task a crash cut short).
 */
export async function listChangeSets(
  dataRoot: string,
  location: Parameters<typeof traceRecords>[0],
  sessionId: string,
): Promise<ChangeSetRow[]> {
  const changes = openChanges(dataRoot, sessionId);
  if (!changes) return [];
  try {
    // Every change set with checkpoints or a recorded summary (a task whose commands alone
    // changed files has no checkpoints), newest first.
    const { summaries, order } = recordedOf(traceRecords(location, sessionId));
    const rows: ChangeSetRow[] = [];
    for (const changeSet of order.reverse()) {
      const summary = summaries.get(changeSet) ?? (await changes.changes(changeSet));
      if (summary) rows.push(rowOf(changes, changeSet, summary));
    }
    return rows;
  } finally {
    changes.close();
  }
}

/** One change set with its unified diff when asked; undefined when the session has no such change set. */
export async function oneChangeSet(
  dataRoot: string,
  sessionId: string,
  changeSet: string,
  diff: boolean,
): Promise<ChangeSetRow | undefined> {
  const changes = openChanges(dataRoot, sessionId);
  if (!changes) return undefined;
  try {
    if (!changes.knows(changeSet)) return undefined;
    const summary = await changes.changes(changeSet, { diff });
    if (!summary) return undefined;
    const row = rowOf(changes, changeSet, summary);
    return summary.diff !== undefined ? { ...row, diff: summary.diff } : row;
  } finally {
    changes.close();
  }
}

/**
 * The change set a revert takes: `task` when the session has it, else the newest task not
 * reverted; or why there is none.
 */
export function revertTarget(
  dataRoot: string,
  sessionId: string,
  task: string | undefined,
): { changeSet: string } | { refused: "nothing_to_revert" | "unknown_change_set" } {
  const changes = openChanges(dataRoot, sessionId);
  try {
    if (task === undefined) {
      const latest = changes?.latestTask();
      return latest === undefined ? { refused: "nothing_to_revert" } : { changeSet: latest };
    }
    return changes?.knows(task) ? { changeSet: task } : { refused: "unknown_change_set" };
  } finally {
    changes?.close();
  }
}

/** The records a revert wrote (its `changes_reverted` and its own `task_changes`), for the live stream. */
export function revertRecords(
  location: Parameters<typeof traceRecords>[0],
  sessionId: string,
  changeSet: string,
): OmniMessage[] {
  return traceRecords(location, sessionId).filter(
    (record) =>
      (isPayload(record, "changes_reverted") || isPayload(record, "task_changes")) &&
      record.payload.change_set === changeSet,
  );
}
