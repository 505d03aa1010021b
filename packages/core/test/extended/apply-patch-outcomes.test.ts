import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  parseFailureMessage,
  planFailureMessage,
  writeFailureMessage,
} from "../../src/tools/extended/apply-patch/patch-messages.js";
import type {
  CurrentFileProblem,
  FileChange,
  OperationPlace,
} from "../../src/tools/extended/apply-patch/patch-outcomes.js";
import { describeFsError } from "../../src/tools/files/file-tool-support.js";
import { extendedEnvironment, runCall, type TempDirs, workspace } from "./support.js";

// apply_patch reports typed outcomes and renders them once (patch-messages.ts). These are the
// exact texts the model reads for every outcome, including those the file-based tests rarely
// reach; then a few of them through the real tool.

const at: OperationPlace = { path: "/ws/a.txt", shown: "a.txt", patchLine: 3 };

describe("apply_patch's messages, one per outcome", () => {
  it("renders every refusal with where it happened and that no file was changed", () => {
    /** The message for a file the patch could not use, by what it does to the file. */
    const fileProblem = (change: FileChange, problem: CurrentFileProblem) =>
      planFailureMessage({
        kind: "current-file",
        operation: change === "delete" ? "Delete File" : "Update File",
        change,
        at,
        problem,
      });
    expect(fileProblem("update", { kind: "gone-earlier" })).toBe(
      "Update File a.txt (patch line 3): a.txt is deleted or moved away earlier in this patch; it cannot be updated. No file was changed.",
    );
    expect(fileProblem("delete", { kind: "missing" })).toBe(
      "Delete File a.txt (patch line 3): a.txt does not exist, so it cannot be deleted. No file was changed.",
    );
    expect(fileProblem("move", { kind: "not-regular" })).toBe(
      "Update File a.txt (patch line 3): a.txt is not a regular file; apply_patch changes text files only. No file was changed.",
    );
    expect(fileProblem("update", { kind: "too-large", size: 20, maxBytes: 10 })).toBe(
      "Update File a.txt (patch line 3): a.txt has 20 bytes, more than apply_patch changes (10). No file was changed.",
    );
    expect(fileProblem("update", { kind: "binary" })).toBe(
      "Update File a.txt (patch line 3): a.txt is a binary file (it contains NUL bytes); apply_patch changes text files only. No file was changed.",
    );
    expect(fileProblem("update", { kind: "not-utf8" })).toBe(
      "Update File a.txt (patch line 3): a.txt is not valid UTF-8 text; a patch would corrupt its bytes. No file was changed.",
    );
    const cause = Object.assign(new Error("denied"), { code: "EACCES" });
    expect(fileProblem("update", { kind: "read-failed", cause })).toBe(
      `Update File a.txt (patch line 3): ${describeFsError("read", "/ws/a.txt", cause)} No file was changed.`,
    );
    expect(planFailureMessage({ kind: "add-target-exists", at })).toBe(
      "Add File a.txt (patch line 3): it already exists. Change it with Update File. No file was changed.",
    );
    expect(planFailureMessage({ kind: "move-target-exists", at, destination: "b.txt" })).toBe(
      "Update File a.txt (patch line 3): Move to b.txt: it already exists, and apply_patch never overwrites. No file was changed.",
    );
    expect(
      planFailureMessage({ kind: "hunks-not-applied", message: "Update File a.txt, hunk 1: no match." }),
    ).toBe("Update File a.txt, hunk 1: no match. No file was changed.");
    expect(planFailureMessage({ kind: "check-failed", at, cause })).toBe(
      `a.txt (patch line 3): ${describeFsError("check", "/ws/a.txt", cause)} No file was changed.`,
    );
    expect(parseFailureMessage("The patch is empty: it changes no file.")).toBe(
      "The patch is empty: it changes no file. No file was changed.",
    );
  });

  it("renders a failed write with what was undone", () => {
    const cause = Object.assign(new Error("full"), { code: "ENOSPC" });
    const failed = describeFsError("write", "/ws/a.txt", cause);
    expect(writeFailureMessage({ path: "/ws/a.txt", cause, undoFailed: [] })).toBe(
      `The patch failed while writing: ${failed} Every change already made was undone: no file was changed.`,
    );
    expect(writeFailureMessage({ path: "/ws/a.txt", cause, undoFailed: ["b.txt", "c.txt"] })).toBe(
      `The patch failed while writing: ${failed} Undoing failed for b.txt, c.txt: check these files.`,
    );
  });
});

describe("apply_patch's refusals through the tool", () => {
  let dirs: TempDirs;
  beforeEach(async () => {
    dirs = await workspace();
  });
  afterEach(async () => {
    await dirs.cleanup();
  });
  const patch = (...lines: string[]) => ["*** Begin Patch", ...lines, "*** End Patch"].join("\n");
  /** The output, with the workspace's paths shown relative to it. */
  const apply = async (text: string) =>
    (await runCall(extendedEnvironment(dirs, {}), "apply_patch", { patch: text })).complete.output.replaceAll(
      `${dirs.workspaceDir}/`,
      "",
    );

  it("a file deleted earlier in the same patch cannot be updated", async () => {
    await writeFile(join(dirs.workspaceDir, "a.txt"), "one\n");
    const output = await apply(
      patch("*** Delete File: a.txt", "*** Update File: a.txt", "@@", "-one", "+two"),
    );
    expect(output).toBe(
      "Update File a.txt (patch line 3): a.txt is deleted or moved away earlier in this patch; it cannot be updated. No file was changed.",
    );
  });

  it("a binary file or a directory is not patched", async () => {
    await writeFile(join(dirs.workspaceDir, "bin.dat"), Buffer.from([0x61, 0x00, 0x62]));
    expect(await apply(patch("*** Delete File: bin.dat"))).toBe(
      "Delete File bin.dat (patch line 2): bin.dat is a binary file (it contains NUL bytes); apply_patch changes text files only. No file was changed.",
    );
    await mkdir(join(dirs.workspaceDir, "folder"));
    expect(await apply(patch("*** Delete File: folder"))).toBe(
      "Delete File folder (patch line 2): folder is not a regular file; apply_patch changes text files only. No file was changed.",
    );
  });
});
