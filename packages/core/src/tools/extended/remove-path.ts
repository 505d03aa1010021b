import { realpath, rm, rmdir, unlink } from "node:fs/promises";
import { parse, sep } from "node:path";
import type { ToolDefinitionConfig } from "@penguin/state";
import type { BuiltinTool } from "../../environment/types.js";
import { answer, fail } from "../call-text.js";
import { checkpointPaths, effectHash, recordFileEffects } from "../files/effects.js";
import {
  booleanArg,
  describeFsError,
  executeWithArguments,
  fsErrorCode,
  optionalStringArg,
  pathArg,
  pathLockKeys,
  shownPath,
} from "../files/file-tool-support.js";
import { checkPathChange } from "../files/path-guard.js";
import { existingPath } from "../files/path-hint.js";

// "remove_path (a non-empty directory needs recursive; a symlink is removed as a link; the
// workspace root and / are refused)".

/** Whether removing `path` would remove the file system root or the workspace (itself or by an ancestor). */
async function protectedPath(path: string, workspaceDir: string): Promise<string | undefined> {
  const isRootOrAncestor = (candidate: string, workspace: string) =>
    candidate === parse(candidate).root ||
    candidate === workspace ||
    workspace.startsWith(`${candidate}${sep}`);
  if (isRootOrAncestor(path, workspaceDir)) {
    return path === parse(path).root
      ? "the file system root"
      : path === workspaceDir
        ? "the workspace root"
        : "an ancestor of the workspace";
  }
  // The same folders reached through a symlinked spelling.
  try {
    const [real, realWorkspace] = await Promise.all([realpath(path), realpath(workspaceDir)]);
    if (isRootOrAncestor(real, realWorkspace))
      return "the workspace root or one of its ancestors (through a symlink in the path)";
  } catch {
    // Nothing to compare: the removal itself reports a missing path.
  }
  return undefined;
}

export function createRemovePathTool(definition: ToolDefinitionConfig): BuiltinTool {
  const execute = executeWithArguments(
    {
      target: pathArg("path"),
      recursive: booleanArg("recursive", false),
      expected: optionalStringArg("expected_sha256"),
    },
    async function* ({ target, recursive, expected }, ctx) {
      const shown = shownPath(target);

      const found = await existingPath(target, "check");
      if (!found.ok) return yield* fail(ctx, found.message);
      const { info } = found;
      // A symlink is removed as a link, so only a real directory can take the workspace with it.
      if (!info.isSymbolicLink()) {
        // The session's workspace stays the protected root wherever change_directory moved the agent.
        const why = await protectedPath(target, ctx.workspaceRoot ?? ctx.workspaceDir);
        if (why) return yield* fail(ctx, `Refused: ${shown} is ${why}; remove_path never removes it.`);
      }
      const verdict = await checkPathChange(ctx, target, info, {
        tool: "remove_path",
        action: "remove",
        needsExpected: true,
        expected: expected,
      });
      if (verdict === "aborted") return { stopReason: "aborted" };
      if (!verdict.ok) return yield* fail(ctx, verdict.message);

      const saved = await checkpointPaths(ctx, [target], { recursive: recursive === true });
      if (!saved.ok) return yield* fail(ctx, saved.error);
      // A regular file's removal is journaled with its hash; a directory or a link has none.
      if (info.isFile() && ctx.recordEffect) {
        const hash = await effectHash(target, verdict.sha256);
        if (!hash.ok) return yield* fail(ctx, describeFsError("read", target, hash.error));
        recordFileEffects(ctx, [{ path: target, before_sha256: hash.sha256, after_sha256: null }]);
      }
      try {
        if (info.isDirectory()) {
          if (recursive) await rm(target, { recursive: true });
          else await rmdir(target);
        } else {
          await unlink(target);
        }
      } catch (error) {
        if (fsErrorCode(error) === "ENOTEMPTY" || fsErrorCode(error) === "EEXIST") {
          return yield* fail(
            ctx,
            `${shown} is a directory that is not empty; pass recursive: true to remove it with its contents.`,
          );
        }
        return yield* fail(ctx, describeFsError("remove", target, error));
      }
      ctx.fileReads?.forget(target);
      const kind = info.isDirectory()
        ? recursive
          ? "directory (with its contents)"
          : "empty directory"
        : info.isSymbolicLink()
          ? "symlink (its target was not touched)"
          : "file";
      return yield* answer(ctx, `Removed ${kind} ${shown}.`);
    },
  );

  return {
    name: definition.name,
    definition,
    execute,
    lockKeys: pathLockKeys("path"),
  };
}
