import { chmod, mkdir, rmdir, unlink, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { FileEffect } from "@penguin/protocol";
import { shownPath } from "../../files/file-tool-support.js";
import { sha256Of } from "../../files/hashes.js";
import { writeRegularFile } from "../../files/regular-file.js";
import type { WriteFailure } from "./patch-outcomes.js";
import type { Step } from "./patch-plan.js";

// "applied all-or-nothing (… a failure leaves every file as it was)": a checked plan is written
// step by step; when a step fails, every step already taken is undone, newest first.

export type WriteOutcome = { ok: true } | { ok: false; failure: WriteFailure };

/**
 * Every file the plan changes, with its hash before the plan and after it (null: absent), for the
 * journal. A path that several steps touch (a file moved onto a path another step frees) keeps
 * the hash it had before the first step and the one the last step leaves.
 */
export function planEffects(steps: readonly Step[]): FileEffect[] {
  const byPath = new Map<string, FileEffect>();
  for (const step of steps) {
    const before = step.kind === "create" ? null : sha256Of(step.original);
    const after = step.kind === "remove" ? null : sha256Of(step.content);
    const known = byPath.get(step.path);
    byPath.set(step.path, {
      path: step.path,
      before_sha256: known ? known.before_sha256 : before,
      after_sha256: after,
    });
  }
  return [...byPath.values()];
}

/** Writes the plan; on a failure, undoes every step already taken, newest first. */
export async function writePlan(steps: Step[]): Promise<WriteOutcome> {
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
    return { ok: false, failure: { path: failedPath, cause: error, undoFailed } };
  }
}
