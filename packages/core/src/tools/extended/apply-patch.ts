import type { Stats } from "node:fs";
import { chmod, lstat, mkdir, rmdir, stat, unlink, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { OmniMessage } from "@penguin/protocol";
import { defaultToolLimits, type ToolDefinitionConfig, type ToolLimits } from "@penguin/state";
import type { BuiltinTool, ToolExecutionContext, ToolResult } from "../../environment/types.js";
import {
  answer,
  describeFsError,
  fail,
  fsErrorCode,
  resolveToolPath,
  shownPath,
  stringArgument,
} from "../files/file-tool-support.js";
import { sha256Note, sha256Of } from "../files/hashes.js";
import { readRegularFile, writeRegularFile } from "../files/regular-file.js";
import { checkExistingFile } from "../files/write-guard.js";
import { applyHunks } from "./patch-hunks.js";
import { type PatchOperation, parsePatch } from "./patch-parser.js";

// "apply_patch: one exact-match patch across several files in the *** Begin Patch envelope with
// add, update, delete and move actions, applied all-or-nothing (validate everything, then write;
// a failure leaves every file as it was)."

type PatchLimits = ToolLimits["apply_patch"];

/** One planned file change, checked and ready to write. */
type Step =
  | { kind: "create"; path: string; content: string; mode?: number }
  | { kind: "overwrite"; path: string; content: string; original: Buffer }
  | { kind: "remove"; path: string; original: Buffer; mode: number };

interface Plan {
  steps: Step[];
  summary: string[];
  /** Final content of each written path, for the write guard's hashes. */
  written: Map<string, string>;
  removed: string[];
}

/** What the patch sees at a path: the disk, as changed by the earlier operations of the same patch. */
type Virtual = Map<string, { content: string; original?: Buffer; mode?: number } | null>;

async function existsOnDisk(path: string): Promise<Stats | undefined> {
  try {
    return await lstat(path);
  } catch (error) {
    if (fsErrorCode(error) === "ENOENT") return undefined;
    throw error;
  }
}

export function createApplyPatchTool(
  definition: ToolDefinitionConfig,
  limits: PatchLimits = defaultToolLimits().apply_patch,
): BuiltinTool {
  /** The current text of a file the patch updates or deletes, checked (exists, text, size, guard). */
  async function currentFile(
    ctx: ToolExecutionContext,
    virtual: Virtual,
    path: string,
    action: string,
  ): Promise<{ ok: true; text: string; original: Buffer; mode: number } | { ok: false; error: string }> {
    const shown = shownPath(path);
    const planned = virtual.get(path);
    if (planned === null)
      return {
        ok: false,
        error: `${shown} is deleted or moved away earlier in this patch; it cannot ${action}.`,
      };
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
      if (fsErrorCode(error) === "ENOENT")
        return { ok: false, error: `${shown} does not exist, so it cannot ${action}.` };
      return { ok: false, error: describeFsError("read", path, error) };
    }
    if (!info.isFile())
      return { ok: false, error: `${shown} is not a regular file; apply_patch changes text files only.` };
    if (info.size > limits.maxFileBytes) {
      return {
        ok: false,
        error: `${shown} has ${info.size} bytes, more than apply_patch changes (${limits.maxFileBytes}).`,
      };
    }
    let bytes: Buffer;
    try {
      bytes = await readRegularFile(path);
    } catch (error) {
      return { ok: false, error: describeFsError("read", path, error) };
    }
    if (bytes.includes(0))
      return {
        ok: false,
        error: `${shown} is a binary file (it contains NUL bytes); apply_patch changes text files only.`,
      };
    const text = bytes.toString("utf8");
    if (!Buffer.from(text, "utf8").equals(bytes)) {
      return { ok: false, error: `${shown} is not valid UTF-8 text; a patch would corrupt its bytes.` };
    }
    if (ctx.fileReads) {
      const verdict = checkExistingFile(ctx.fileReads, path, {
        tool: "apply_patch",
        // "be updated" -> "update", "be moved" -> "move", "be deleted" -> "delete".
        action: action.replace(/^be (\w+?)d$/, "$1"),
        currentSha256: sha256Of(bytes),
        needsExpected: false,
      });
      if (!verdict.ok) return { ok: false, error: verdict.message };
    }
    return { ok: true, text, original: bytes, mode: info.mode & 0o7777 };
  }

  /** Validates every operation against the files, changing nothing; the plan to write, or the first problem. */
  async function plan(
    ctx: ToolExecutionContext,
    operations: PatchOperation[],
  ): Promise<{ ok: true; plan: Plan } | { ok: false; error: string }> {
    const virtual: Virtual = new Map();
    const result: Plan = { steps: [], summary: [], written: new Map(), removed: [] };
    const absent = async (path: string): Promise<boolean> => {
      const planned = virtual.get(path);
      if (planned !== undefined) return planned === null;
      return (await existsOnDisk(path)) === undefined;
    };
    for (const operation of operations) {
      const path = resolveToolPath(ctx.workspaceDir, operation.path);
      const shown = shownPath(path);
      const at = `(patch line ${operation.patchLine})`;
      try {
        if (operation.kind === "add") {
          if (!(await absent(path))) {
            return {
              ok: false,
              error: `Add File ${shown} ${at}: it already exists. Change it with Update File.`,
            };
          }
          virtual.set(path, { content: operation.content });
          result.steps.push({ kind: "create", path, content: operation.content });
          result.summary.push(`A ${shown}`);
          continue;
        }
        if (operation.kind === "delete") {
          const current = await currentFile(ctx, virtual, path, "be deleted");
          if (!current.ok) return { ok: false, error: `Delete File ${shown} ${at}: ${current.error}` };
          virtual.set(path, null);
          result.steps.push({ kind: "remove", path, original: current.original, mode: current.mode });
          result.summary.push(`D ${shown}`);
          continue;
        }
        const current = await currentFile(ctx, virtual, path, operation.moveTo ? "be moved" : "be updated");
        if (!current.ok) return { ok: false, error: `Update File ${shown} ${at}: ${current.error}` };
        const changed = applyHunks(current.text, operation.hunks, shown);
        if (!changed.ok) return { ok: false, error: `${changed.error} No file was changed.` };
        const counts = operation.hunks.length > 0 ? ` (+${changed.added} \u2212${changed.removed})` : "";
        if (operation.moveTo !== undefined) {
          const destination = resolveToolPath(ctx.workspaceDir, operation.moveTo);
          if (destination !== path) {
            if (!(await absent(destination))) {
              return {
                ok: false,
                error: `Update File ${shown} ${at}: Move to ${shownPath(destination)}: it already exists, and apply_patch never overwrites.`,
              };
            }
            virtual.set(path, null);
            virtual.set(destination, { content: changed.text, mode: current.mode });
            result.steps.push({
              kind: "create",
              path: destination,
              content: changed.text,
              mode: current.mode,
            });
            result.steps.push({ kind: "remove", path, original: current.original, mode: current.mode });
            result.summary.push(`R ${shown} -> ${shownPath(destination)}${counts}`);
            continue;
          }
        }
        virtual.set(path, { content: changed.text, original: current.original, mode: current.mode });
        result.steps.push({ kind: "overwrite", path, content: changed.text, original: current.original });
        result.summary.push(`M ${shown}${counts}`);
      } catch (error) {
        return { ok: false, error: `${shown} ${at}: ${describeFsError("check", path, error)}` };
      }
    }
    for (const [path, state] of virtual) {
      if (state === null) result.removed.push(path);
      else result.written.set(path, state.content);
    }
    return { ok: true, plan: result };
  }

  /** Writes the plan; on a failure, undoes every step already taken, newest first. */
  async function write(
    steps: Step[],
  ): Promise<{ ok: true } | { ok: false; error: string; undoFailed: string[] }> {
    const undo: { path: string; run: () => Promise<void> }[] = [];
    const createdDirs: string[] = [];
    let current: Step | undefined;
    try {
      for (const step of steps) {
        current = step;
        if (step.kind === "create") {
          const parent = dirname(step.path);
          const created = await mkdir(parent, { recursive: true });
          // Every folder from the deepest new one up to the first one mkdir made.
          if (created !== undefined) {
            for (let dir = parent; dir.length >= created.length; dir = dirname(dir)) createdDirs.push(dir);
          }
          await writeFile(step.path, step.content, { encoding: "utf8", flag: "wx" });
          undo.push({ path: step.path, run: () => unlink(step.path) });
          if (step.mode !== undefined) await chmod(step.path, step.mode);
        } else if (step.kind === "overwrite") {
          undo.push({ path: step.path, run: () => writeFile(step.path, step.original) });
          await writeRegularFile(step.path, step.content);
        } else {
          await unlink(step.path);
          undo.push({
            path: step.path,
            run: async () => {
              await writeFile(step.path, step.original, { flag: "wx" });
              await chmod(step.path, step.mode);
            },
          });
        }
      }
      return { ok: true };
    } catch (error) {
      const failedPath = current?.path ?? "";
      const undoFailed: string[] = [];
      for (const entry of undo.reverse()) {
        try {
          await entry.run();
        } catch {
          undoFailed.push(shownPath(entry.path));
        }
      }
      // Folders the patch created, deepest first; rmdir leaves any that are not empty.
      for (const dir of createdDirs.sort((a, b) => b.length - a.length)) {
        await rmdir(dir).catch(() => {});
      }
      return { ok: false, error: describeFsError("write", failedPath, error), undoFailed };
    }
  }

  async function* execute(
    args: Record<string, unknown>,
    ctx: ToolExecutionContext,
  ): AsyncGenerator<OmniMessage, ToolResult> {
    const patch = stringArgument(args, "patch");
    if (!patch.ok) return yield* fail(ctx, patch.error);
    const parsed = parsePatch(patch.value);
    if (!parsed.ok) return yield* fail(ctx, `${parsed.error} No file was changed.`);
    const planned = await plan(ctx, parsed.operations);
    if (!planned.ok) {
      const text = planned.error.endsWith("No file was changed.")
        ? planned.error
        : `${planned.error} No file was changed.`;
      return yield* fail(ctx, text);
    }
    if (ctx.signal?.aborted) return { stopReason: "aborted" };
    const written = await write(planned.plan.steps);
    if (!written.ok) {
      const undone =
        written.undoFailed.length === 0
          ? "Every change already made was undone: no file was changed."
          : `Undoing failed for ${written.undoFailed.join(", ")}: check these files.`;
      return yield* fail(ctx, `The patch failed while writing: ${written.error} ${undone}`);
    }
    let note: string | undefined;
    if (ctx.fileReads) {
      const hashes: string[] = [];
      for (const path of planned.plan.removed) ctx.fileReads.forget(path);
      for (const [path, content] of planned.plan.written) {
        const sha256 = sha256Of(content);
        ctx.fileReads.noteWritten(path, sha256);
        hashes.push(`${sha256Note(sha256).slice(0, -1)} ${shownPath(path)}]`);
      }
      note = hashes.length > 0 ? hashes.join("\n") : undefined;
    }
    const count = planned.plan.summary.length;
    return yield* answer(
      ctx,
      `Applied the patch (${count} file${count === 1 ? "" : "s"}):\n${planned.plan.summary.join("\n")}`,
      {
        note,
      },
    );
  }

  return {
    name: definition.name,
    definition,
    execute,
    // Every path the patch reads or writes: update, add and delete targets and move destinations,
    // so no other change of any of them can interleave with the patch. A patch that does not
    // parse changes nothing and needs no lock.
    lockKeys: (args, workspaceDir) => {
      if (typeof args.patch !== "string") return [];
      const parsed = parsePatch(args.patch);
      if (!parsed.ok) return [];
      return parsed.operations.flatMap((operation) =>
        (operation.kind === "update" && operation.moveTo !== undefined
          ? [operation.path, operation.moveTo]
          : [operation.path]
        ).map((path) => resolveToolPath(workspaceDir, path)),
      );
    },
  };
}
