import { mkdir, stat } from "node:fs/promises";
import type { OmniMessage } from "@penguin/protocol";
import type { ToolDefinitionConfig } from "@penguin/state";
import type { BuiltinTool, ToolExecutionContext, ToolResult } from "../../environment/types.js";
import {
  answer,
  describeFsError,
  fail,
  fsErrorCode,
  pathArg,
  pathLockKeys,
  readArguments,
  shownPath,
} from "../files/file-tool-support.js";

// "make_directory (existing is success)".

export function createMakeDirectoryTool(definition: ToolDefinitionConfig): BuiltinTool {
  async function* execute(
    args: Record<string, unknown>,
    ctx: ToolExecutionContext,
  ): AsyncGenerator<OmniMessage, ToolResult> {
    const input = readArguments(args, ctx.workspaceDir, { path: pathArg("path") });
    if (!input.ok) return yield* fail(ctx, input.error);
    const { path } = input.value;
    const shown = shownPath(path);
    try {
      const info = await stat(path);
      if (info.isDirectory()) return yield* answer(ctx, `${shown} already exists (a directory).`);
      return yield* fail(ctx, `${shown} exists and is not a directory.`);
    } catch (error) {
      if (fsErrorCode(error) !== "ENOENT") return yield* fail(ctx, describeFsError("check", path, error));
    }
    try {
      await mkdir(path, { recursive: true });
    } catch (error) {
      return yield* fail(ctx, describeFsError("create", path, error));
    }
    ctx.fileReads?.noteListed(path);
    return yield* answer(ctx, `Created directory ${shown}.`);
  }

  return {
    name: definition.name,
    definition,
    execute,
    lockKeys: pathLockKeys("path"),
  };
}
