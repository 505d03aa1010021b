import { scratchpadDir, scratchpadRoot, tracesDir } from "@penguin/state";
import { readSession, TraceWriter } from "@penguin/trace";
import { CheckpointBook } from "./book.js";
import { type RevertOptions, type RevertOutcome, revertChangeSet } from "./revert.js";
import { BlobStore } from "./store.js";
import { type ChangeSummary, summarize } from "./summary.js";

// A top-level session's changes and their revert without opening the session (no model, no
// tools): what `penguin undo` uses. The session must not be running in another process meanwhile:
// the revert appends to its trace.

/** A task by its number in the session (1 is the first), or a revert by the id it returned (`undo-1`). */
export type ChangeSetRef = number | string;

/** The change set `ref` names; none: the latest (for a revert, the latest task not reverted). */
export function changeSetOf(book: CheckpointBook, ref: ChangeSetRef | undefined, forRevert = false) {
  if (ref !== undefined) return String(ref);
  return forRevert ? book.latestTask() : book.changeSets().at(-1);
}

export interface SessionChanges {
  /** The change sets with checkpoints, oldest first. */
  changeSets(): string[];
  /** Whether `ref` names a change set with checkpoints or with a record of what its commands changed. */
  knows(ref: ChangeSetRef): boolean;
  changes(ref?: ChangeSetRef, options?: { diff?: boolean }): Promise<ChangeSummary | undefined>;
  revert(ref?: ChangeSetRef, options?: RevertOptions): Promise<RevertOutcome | undefined>;
  close(): void;
}

/** Opens the checkpoints of session `sessionId` under `dataRoot` (throws when it has no trace). */
export function openSessionChanges(dataRoot: string, sessionId: string): SessionChanges {
  const location = { tracesDir: tracesDir(dataRoot), scratchpadRoot: scratchpadRoot(dataRoot) };
  const { records } = readSession(location, sessionId);
  let trace: TraceWriter | undefined;
  const append = (record: Parameters<TraceWriter["append"]>[0]) => {
    trace ??= TraceWriter.open(location, sessionId);
    trace.append(record);
  };
  const book = new CheckpointBook({
    ownerSessionId: sessionId,
    store: new BlobStore(scratchpadDir(dataRoot, sessionId)),
    records: () => records,
    append,
  });
  return {
    changeSets: () => book.changeSets(),
    knows: (ref) => book.knows(String(ref)),
    async changes(ref, options) {
      const changeSet = changeSetOf(book, ref);
      return changeSet === undefined ? undefined : summarize(book, changeSet, options);
    },
    async revert(ref, options = {}) {
      const changeSet = changeSetOf(book, ref, true);
      return changeSet === undefined ? undefined : revertChangeSet(book, changeSet, options, append);
    },
    close: () => trace?.close(),
  };
}
