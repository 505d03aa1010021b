import type { Stats } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import type { ToolDefinitionConfig } from "@penguin/state";
import type { BuiltinTool } from "../../environment/types.js";
import { answer, fail } from "../call-text.js";
import { checkpointPaths, effectHash, recordFileEffects } from "../files/effects.js";
import {
  describeFsError,
  executeWithArguments,
  pathArg,
  pathLockKeys,
  shownPath,
} from "../files/file-tool-support.js";
import { lstatIfExists } from "../files/fs-probes.js";
import { checkPathChange } from "../files/path-guard.js";
import { notFoundMessage } from "../files/path-hint.js";
import { type MoveOutcome, moveWithoutOverwrite } from "./move-no-overwrite.js";

// "move_path (never overwrites, creates missing parents)".

function alreadyExists(to: string): string {
  return `${shownPath(to)} already exists; move_path never overwrites. Remove it first, or pick another destination.`;
}

export function createMovePathTool(definition: ToolDefinitionConfig): BuiltinTool {
  const execute = executeWithArguments(
    {
      from: pathArg("source"),
      to: pathArg("destination"),
    },
    async function* ({ from, to }, ctx) {
      if (from === to)
        return yield* fail(ctx, `source and destination are the same path (${shownPath(from)}).`);

      let info: Stats | undefined;
      let existing: Stats | undefined;
      try {
        info = await lstatIfExists(from);
        if (!info) return yield* fail(ctx, await notFoundMessage(from));
        existing = await lstatIfExists(to);
      } catch (error) {
        return yield* fail(ctx, describeFsError("check", from, error));
      }
      if (existing) return yield* fail(ctx, alreadyExists(to));
      if (info.isDirectory() && to.startsWith(`${from}/`)) {
        return yield* fail(
          ctx,
          `Cannot move the directory ${shownPath(from)} into itself (${shownPath(to)}).`,
        );
      }
      const verdict = await checkPathChange(ctx, from, info, {
        tool: "move_path",
        action: "move",
        needsExpected: false,
      });
      if (verdict === "aborted") return { stopReason: "aborted" };
      if (!verdict.ok) return yield* fail(ctx, verdict.message);

      const saved = await checkpointPaths(ctx, [from, to], { recursive: true });
      if (!saved.ok) return yield* fail(ctx, saved.error);
      // A regular file's move is journaled with its hash at both ends; a directory or a link has none.
      if (info.isFile() && ctx.recordEffect) {
        const hash = await effectHash(from, verdict.sha256);
        if (!hash.ok) return yield* fail(ctx, describeFsError("read", from, hash.error));
        recordFileEffects(ctx, [
          { path: from, before_sha256: hash.sha256, after_sha256: null },
          { path: to, before_sha256: null, after_sha256: hash.sha256 },
        ]);
      }
      let outcome: MoveOutcome;
      try {
        await mkdir(dirname(to), { recursive: true });
        // The check above gives the usual answer early; this one holds even against a destination
        // created since (by another process): the move itself never replaces anything.
        outcome = await moveWithoutOverwrite(from, to, info.isDirectory());
      } catch (error) {
        return yield* fail(ctx, `${describeFsError("move", from, error)} Nothing was moved.`);
      }
      if (!outcome.ok) {
        return yield* fail(
          ctx,
          outcome.reason === "exists"
            ? alreadyExists(to)
            : `${shownPath(to)} was created by someone else while the directory was being moved there; move_path never overwrites, so nothing was moved.`,
        );
      }
      ctx.fileReads?.moved(from, to);
      const kind = info.isDirectory() ? "directory" : info.isSymbolicLink() ? "symlink" : "file";
      return yield* answer(ctx, `Moved ${kind} ${shownPath(from)} to ${shownPath(to)}.`);
    },
  );

  return {
    name: definition.name,
    definition,
    execute,
    // Both ends: a move must not interleave with a change of its source or of its destination.
    lockKeys: pathLockKeys("source", "destination"),
  };
}
