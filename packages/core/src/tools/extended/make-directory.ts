import { mkdir, stat } from "node:fs/promises";
import type { OmniMessage } from "@penguin/protocol";
import type { ToolDefinitionConfig } from "@penguin/state";
import type { BuiltinTool, ToolExecutionContext, ToolResult } from "../../environment/types.js";
import {
  answer,
  describeFsError,
  fail,
  fsErrorCode,
  pathArgument,
  resolveToolPath,
  shownPath,
} from "../files/file-tool-support.js";

// "make_directory (existing is success)".

export function createMakeDirectoryTool(definition: ToolDefinitionConfig): BuiltinTool {
  async function* execute(
    args: Record<string, unknown>,
    ctx: ToolExecutionContext,
  ): AsyncGenerator<OmniMessage, ToolResult> {
    const path = pathArgument(args, "path", ctx.workspaceDir);
    if (!path.ok) return yield* fail(ctx, path.error);
    const shown = shownPath(path.value);
    try {
      const info = await stat(path.value);
      if (info.isDirectory()) return yield* answer(ctx, `${shown} already exists (a directory).`);
      return yield* fail(ctx, `${shown} exists and is not a directory.`);
    } catch (error) {
      if (fsErrorCode(error) !== "ENOENT")
        return yield* fail(ctx, describeFsError("check", path.value, error));
    }
    try {
      await mkdir(path.value, { recursive: true });
    } catch (error) {
      return yield* fail(ctx, describeFsError("create", path.value, error));
    }
    ctx.fileReads?.noteListed(path.value);
    return yield* answer(ctx, `Created directory ${shown}.`);
  }

  return {
    name: definition.name,
    definition,
    execute,
    lockKeys: (args, workspaceDir) =>
      typeof args.path === "string" ? [resolveToolPath(workspaceDir, args.path)] : [],
  };
}
