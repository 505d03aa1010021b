import { mkdir, stat } from "node:fs/promises";
import type { ToolDefinitionConfig } from "@penguin/state";
import type { BuiltinTool } from "../../environment/types.js";
import { answer, fail } from "../call-text.js";
import { checkpointPaths } from "../files/effects.js";
import {
  describeFsError,
  executeWithArguments,
  fsErrorCode,
  pathArg,
  pathLockKeys,
  shownPath,
} from "../files/file-tool-support.js";

// "make_directory (existing is success)".

export function createMakeDirectoryTool(definition: ToolDefinitionConfig): BuiltinTool {
  const execute = executeWithArguments({ path: pathArg("path") }, async function* ({ path }, ctx) {
    const shown = shownPath(path);
    try {
      const info = await stat(path);
      if (info.isDirectory()) return yield* answer(ctx, `${shown} already exists (a directory).`);
      return yield* fail(ctx, `${shown} exists and is not a directory.`);
    } catch (error) {
      if (fsErrorCode(error) !== "ENOENT") return yield* fail(ctx, describeFsError("check", path, error));
    }
    const saved = await checkpointPaths(ctx, [path]);
    if (!saved.ok) return yield* fail(ctx, saved.error);
    try {
      await mkdir(path, { recursive: true });
    } catch (error) {
      return yield* fail(ctx, describeFsError("create", path, error));
    }
    ctx.fileReads?.noteListed(path);
    return yield* answer(ctx, `Created directory ${shown}.`);
  });

  return {
    name: definition.name,
    definition,
    execute,
    lockKeys: pathLockKeys("path"),
  };
}
