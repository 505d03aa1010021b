import { scratchpadDir, scratchpadRoot, tracesDir } from "@penguin/state";
import { readSession, TraceWriter } from "@penguin/trace";
import { holdSession } from "../processes/session-holder.js";
import { CheckpointBook } from "./book.js";
import { type RevertOptions, type RevertOutcome, revertChangeSet } from "./revert.js";
import { BlobStore } from "./store.js";
import { type ChangeSummary, summarize } from "./summary.js";

// A top-level session's changes and their revert without opening the session (no model, no
// tools): what `penguin undo` uses. A revert appends to the session's trace, so it holds the
// session while it does (processes/session-holder.ts): it is refused while another process has the
// session open (`penguin chat`, `penguin serve`), which would not know of the revert.

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
  /** The standing revert of `changeSet` (one not itself reverted), if any. */
  revertedBy(changeSet: string): string | undefined;
  /** For a revert, the change set it reverted. */
  revertOf(changeSet: string): string | undefined;
  /** What a revert without a task takes: the newest task with changes not reverted. */
  latestTask(): string | undefined;
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
  const scratchpad = scratchpadDir(dataRoot, sessionId);
  let trace: TraceWriter | undefined;
  /** Holds the session and opens its trace, once, before the revert's first change. */
  const openTrace = (): TraceWriter => {
    if (trace) return trace;
    const release = holdSession(scratchpad, sessionId);
    try {
      trace = TraceWriter.open(location, sessionId, { onClose: release });
    } catch (error) {
      release();
      throw error;
    }
    return trace;
  };
  const append = (record: Parameters<TraceWriter["append"]>[0]) => {
    openTrace().append(record);
  };
  const book = new CheckpointBook({
    ownerSessionId: sessionId,
    store: new BlobStore(scratchpad),
    records: () => records,
    append,
  });
  return {
    changeSets: () => book.changeSets(),
    revertedBy: (changeSet) => book.revertedBy(changeSet),
    revertOf: (changeSet) => book.revertOf(changeSet),
    latestTask: () => book.latestTask(),
    knows: (ref) => book.knows(String(ref)),
    async changes(ref, options) {
      const changeSet = changeSetOf(book, ref);
      return changeSet === undefined ? undefined : summarize(book, changeSet, options);
    },
    async revert(ref, options = {}) {
      const changeSet = changeSetOf(book, ref, true);
      if (changeSet === undefined) return undefined;
      // A dry run changes nothing and records nothing; a revert holds the session from the start.
      if (options.dryRun !== true) openTrace();
      return revertChangeSet(book, changeSet, options, append);
    },
    close: () => trace?.close(),
  };
}
