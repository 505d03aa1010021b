import { describeFsError } from "../../files/file-tool-support.js";
import type {
  CurrentFileProblem,
  FileChange,
  OperationPlace,
  PlanFailure,
  WriteFailure,
} from "./patch-outcomes.js";

// The text the model reads for each apply_patch outcome. Every refusal ends by saying that no
// file was changed: the patch is all-or-nothing.

const NOTHING_CHANGED = "No file was changed.";

const PASSIVE: Record<FileChange, string> = { update: "be updated", move: "be moved", delete: "be deleted" };

function currentFileMessage(problem: CurrentFileProblem, at: OperationPlace, change: FileChange): string {
  const shown = at.shown;
  switch (problem.kind) {
    case "gone-earlier":
      return `${shown} is deleted or moved away earlier in this patch; it cannot ${PASSIVE[change]}.`;
    case "missing":
      return `${shown} does not exist, so it cannot ${PASSIVE[change]}.`;
    case "read-failed":
      return describeFsError("read", at.path, problem.cause);
    case "not-regular":
      return `${shown} is not a regular file; apply_patch changes text files only.`;
    case "too-large":
      return `${shown} has ${problem.size} bytes, more than apply_patch changes (${problem.maxBytes}).`;
    case "binary":
      return `${shown} is a binary file (it contains NUL bytes); apply_patch changes text files only.`;
    case "not-utf8":
      return `${shown} is not valid UTF-8 text; a patch would corrupt its bytes.`;
    case "write-guard":
      return problem.message;
  }
}

function placeOf(at: OperationPlace): string {
  return `(patch line ${at.patchLine})`;
}

/** A refused patch: what was wrong, then that nothing was changed. */
export function planFailureMessage(failure: PlanFailure): string {
  switch (failure.kind) {
    case "add-target-exists":
      return `Add File ${failure.at.shown} ${placeOf(failure.at)}: it already exists. Change it with Update File. ${NOTHING_CHANGED}`;
    case "current-file": {
      const why = currentFileMessage(failure.problem, failure.at, failure.change);
      return `${failure.operation} ${failure.at.shown} ${placeOf(failure.at)}: ${why} ${NOTHING_CHANGED}`;
    }
    case "hunks-not-applied":
      return `${failure.message} ${NOTHING_CHANGED}`;
    case "move-target-exists":
      return `Update File ${failure.at.shown} ${placeOf(failure.at)}: Move to ${failure.destination}: it already exists, and apply_patch never overwrites. ${NOTHING_CHANGED}`;
    case "check-failed":
      return `${failure.at.shown} ${placeOf(failure.at)}: ${describeFsError("check", failure.at.path, failure.cause)} ${NOTHING_CHANGED}`;
  }
}

/** A patch that does not parse. */
export function parseFailureMessage(error: string): string {
  return `${error} ${NOTHING_CHANGED}`;
}

/** A write that failed midway: what failed, and whether every change already made was undone. */
export function writeFailureMessage(failure: WriteFailure): string {
  const undone =
    failure.undoFailed.length === 0
      ? `Every change already made was undone: no file was changed.`
      : `Undoing failed for ${failure.undoFailed.join(", ")}: check these files.`;
  return `The patch failed while writing: ${describeFsError("write", failure.path, failure.cause)} ${undone}`;
}

/** The patch was applied: one summary line per file. */
export function appliedMessage(summary: readonly string[]): string {
  const count = summary.length;
  return `Applied the patch (${count} file${count === 1 ? "" : "s"}):\n${summary.join("\n")}`;
}
