import type { Stats } from "node:fs";
import { stat } from "node:fs/promises";
import type { ToolLimits } from "@penguin/state";
import type { ToolExecutionContext } from "../../../environment/types.js";
import { fsErrorCode, resolveToolPath, shownPath } from "../../files/file-tool-support.js";
import { lstatIfExists } from "../../files/fs-probes.js";
import { sha256Of } from "../../files/hashes.js";
import { readRegularFile } from "../../files/regular-file.js";
import { checkExistingFile } from "../../files/write-guard.js";
import { applyHunks } from "./patch-hunks.js";
import type { CurrentFileProblem, FileChange, OperationPlace, PlanFailure } from "./patch-outcomes.js";
import type { PatchOperation } from "./patch-parser.js";

// "validate everything, then write": every operation of a patch is checked against the files
// (and against the earlier operations of the same patch) before anything is written.

export type PatchLimits = ToolLimits["apply_patch"];

/** One planned file change, checked and ready to write. */
export type Step =
  | { kind: "create"; path: string; content: string; mode?: number }
  | { kind: "overwrite"; path: string; content: string; original: Buffer }
  | { kind: "remove"; path: string; original: Buffer; mode: number };

export interface Plan {
  steps: Step[];
  summary: string[];
  /** Final content of each written path, for the write guard's hashes. */
  written: Map<string, string>;
  removed: string[];
}

export type PlanOutcome = { ok: true; plan: Plan } | { ok: false; failure: PlanFailure };

/** What the patch sees at a path: the disk, as changed by the earlier operations of the same patch. */
type Virtual = Map<string, { content: string; original?: Buffer; mode?: number } | null>;

type CurrentFile =
  | { ok: true; text: string; original: Buffer; mode: number }
  | { ok: false; problem: CurrentFileProblem };

/** The current text of a file the patch updates, moves or deletes, checked (exists, text, size, guard). */
async function currentFile(
  ctx: ToolExecutionContext,
  limits: PatchLimits,
  virtual: Virtual,
  path: string,
  change: FileChange,
): Promise<CurrentFile> {
  const planned = virtual.get(path);
  if (planned === null) return { ok: false, problem: { kind: "gone-earlier" } };
  if (planned !== undefined)
    return {
      ok: true,
      text: planned.content,
      original: planned.original ?? Buffer.from(planned.content),
      mode: planned.mode ?? 0o644,
    };
  let info: Stats;
  try {
    info = await stat(path);
  } catch (error) {
    if (fsErrorCode(error) === "ENOENT") return { ok: false, problem: { kind: "missing" } };
    return { ok: false, problem: { kind: "read-failed", cause: error } };
  }
  if (!info.isFile()) return { ok: false, problem: { kind: "not-regular" } };
  if (info.size > limits.maxFileBytes) {
    return { ok: false, problem: { kind: "too-large", size: info.size, maxBytes: limits.maxFileBytes } };
  }
  let bytes: Buffer;
  try {
    bytes = await readRegularFile(path);
  } catch (error) {
    return { ok: false, problem: { kind: "read-failed", cause: error } };
  }
  if (bytes.includes(0)) return { ok: false, problem: { kind: "binary" } };
  const text = bytes.toString("utf8");
  if (!Buffer.from(text, "utf8").equals(bytes)) return { ok: false, problem: { kind: "not-utf8" } };
  if (ctx.fileReads) {
    const verdict = checkExistingFile(ctx.fileReads, path, {
      tool: "apply_patch",
      action: change,
      currentSha256: sha256Of(bytes),
      needsExpected: false,
    });
    if (!verdict.ok) return { ok: false, problem: { kind: "write-guard", message: verdict.message } };
  }
  return { ok: true, text, original: bytes, mode: info.mode & 0o7777 };
}

/** Validates every operation against the files, changing nothing; the plan to write, or the first problem. */
export async function planPatch(
  ctx: ToolExecutionContext,
  limits: PatchLimits,
  operations: PatchOperation[],
): Promise<PlanOutcome> {
  const virtual: Virtual = new Map();
  const result: Plan = { steps: [], summary: [], written: new Map(), removed: [] };
  const absent = async (path: string): Promise<boolean> => {
    const planned = virtual.get(path);
    if (planned !== undefined) return planned === null;
    return (await lstatIfExists(path)) === undefined;
  };
  const refuse = (failure: PlanFailure): PlanOutcome => ({ ok: false, failure });
  for (const operation of operations) {
    const path = resolveToolPath(ctx.workspaceDir, operation.path);
    const shown = shownPath(path);
    const at: OperationPlace = { path, shown, patchLine: operation.patchLine };
    try {
      if (operation.kind === "add") {
        if (!(await absent(path))) return refuse({ kind: "add-target-exists", at });
        virtual.set(path, { content: operation.content });
        result.steps.push({ kind: "create", path, content: operation.content });
        result.summary.push(`A ${shown}`);
        continue;
      }
      if (operation.kind === "delete") {
        const current = await currentFile(ctx, limits, virtual, path, "delete");
        if (!current.ok)
          return refuse({
            kind: "current-file",
            operation: "Delete File",
            change: "delete",
            at,
            problem: current.problem,
          });
        virtual.set(path, null);
        result.steps.push({ kind: "remove", path, original: current.original, mode: current.mode });
        result.summary.push(`D ${shown}`);
        continue;
      }
      const change: FileChange = operation.moveTo ? "move" : "update";
      const current = await currentFile(ctx, limits, virtual, path, change);
      if (!current.ok)
        return refuse({
          kind: "current-file",
          operation: "Update File",
          change,
          at,
          problem: current.problem,
        });
      const changed = applyHunks(current.text, operation.hunks, shown);
      if (!changed.ok) return refuse({ kind: "hunks-not-applied", message: changed.error });
      const counts = operation.hunks.length > 0 ? ` (+${changed.added} \u2212${changed.removed})` : "";
      if (operation.moveTo !== undefined) {
        const destination = resolveToolPath(ctx.workspaceDir, operation.moveTo);
        if (destination !== path) {
          if (!(await absent(destination))) {
            return refuse({ kind: "move-target-exists", at, destination: shownPath(destination) });
          }
          virtual.set(path, null);
          virtual.set(destination, { content: changed.text, mode: current.mode });
          result.steps.push({ kind: "create", path: destination, content: changed.text, mode: current.mode });
          result.steps.push({ kind: "remove", path, original: current.original, mode: current.mode });
          result.summary.push(`R ${shown} -> ${shownPath(destination)}${counts}`);
          continue;
        }
      }
      virtual.set(path, { content: changed.text, original: current.original, mode: current.mode });
      result.steps.push({ kind: "overwrite", path, content: changed.text, original: current.original });
      result.summary.push(`M ${shown}${counts}`);
    } catch (error) {
      return refuse({ kind: "check-failed", at, cause: error });
    }
  }
  for (const [path, state] of virtual) {
    if (state === null) result.removed.push(path);
    else result.written.set(path, state.content);
  }
  return { ok: true, plan: result };
}
