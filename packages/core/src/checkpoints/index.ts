// Checkpoints of the files the file tools change, per task, so that a task can be reverted.
export { CheckpointBook, type CheckpointEntry } from "./book.js";
export { type ChangeSetRef, changeSetOf, openSessionChanges, type SessionChanges } from "./offline.js";
export { type RevertOptions, type RevertOutcome, revertChangeSet } from "./revert.js";
export { checkpointBookFor, checkpointBookOf } from "./shared.js";
export { BlobStore, CHECKPOINT_FILE_LIMIT, CHECKPOINT_STORE_LIMIT } from "./store.js";
export { type ChangeSummary, summarize, summaryNow } from "./summary.js";
