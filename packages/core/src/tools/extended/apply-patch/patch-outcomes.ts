// What apply_patch's steps report, as values: the tool branches on their `kind`, and
// patch-messages.ts turns each into the text the model reads, in one place.

/** What the patch does to a file it must read first (the write guard's action names). */
export type FileChange = "update" | "move" | "delete";

/** Why the current text of a file the patch updates, moves or deletes cannot be used. */
export type CurrentFileProblem =
  | { kind: "gone-earlier" }
  | { kind: "missing" }
  | { kind: "read-failed"; cause: unknown }
  | { kind: "not-regular" }
  | { kind: "too-large"; size: number; maxBytes: number }
  | { kind: "binary" }
  | { kind: "not-utf8" }
  | { kind: "write-guard"; message: string };

/** Where in the patch an operation is: its file (absolute, and as shown to the model) and its patch line. */
export interface OperationPlace {
  path: string;
  shown: string;
  patchLine: number;
}

/** Why a patch was refused before anything was written. */
export type PlanFailure =
  | { kind: "add-target-exists"; at: OperationPlace }
  | {
      kind: "current-file";
      operation: "Delete File" | "Update File";
      change: FileChange;
      at: OperationPlace;
      problem: CurrentFileProblem;
    }
  /** applyHunks' own message, which names the hunk. */
  | { kind: "hunks-not-applied"; message: string }
  | { kind: "move-target-exists"; at: OperationPlace; destination: string }
  | { kind: "check-failed"; at: OperationPlace; cause: unknown };

/** Why writing a checked plan failed, and the files whose change could not be undone. */
export interface WriteFailure {
  path: string;
  cause: unknown;
  undoFailed: string[];
}
