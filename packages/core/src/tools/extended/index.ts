import { defaultToolLimits, type ToolDefinitionConfig, type ToolLimits } from "@penguin/state";
import type { ToolFactory } from "../../environment/types.js";
import { createReadFileTool } from "../read-file/read-file.js";
import { createApplyPatchTool } from "./apply-patch/apply-patch.js";
import { createChangeDirectoryTool } from "./change-directory.js";
import { jobToolFactories } from "./jobs/index.js";
import { createListFilesTool } from "./list-files.js";
import { createMakeDirectoryTool } from "./make-directory.js";
import { createMovePathTool } from "./move-path.js";
import { createRemovePathTool } from "./remove-path.js";
import { createSearchTextTool } from "./search-text.js";
import { createUseSkillTool } from "./use-skill.js";
import { createWebFetchTool } from "./web-fetch.js";

// The extended toolset's factories, by tool name, made with an agent's `tools.limits`.

export interface ExtendedToolOptions {
  /** `tools.readFileRich`: read_file also shows images and reads PDFs (its core factory otherwise). */
  readFileRich?: boolean;
}

export function extendedToolFactories(
  limits: ToolLimits = defaultToolLimits(),
  options: ExtendedToolOptions = {},
): Record<string, ToolFactory> {
  return {
    ...(options.readFileRich
      ? {
          read_file: (definition: ToolDefinitionConfig) =>
            createReadFileTool(definition, { rich: limits.read_file }),
        }
      : {}),
    list_files: (definition) => createListFilesTool(definition, limits.list_files),
    search_text: (definition) => createSearchTextTool(definition, limits.search_text),
    apply_patch: (definition) => createApplyPatchTool(definition, limits.apply_patch),
    move_path: createMovePathTool,
    make_directory: createMakeDirectoryTool,
    remove_path: createRemovePathTool,
    web_fetch: (definition) => createWebFetchTool(definition, limits.web_fetch),
    use_skill: createUseSkillTool,
    change_directory: createChangeDirectoryTool,
    ...jobToolFactories(limits),
  };
}

export { type FileKnowledge, FileReadRegistry } from "../../environment/file-reads.js";
export { sha256File } from "../files/hashes.js";
export { createApplyPatchTool } from "./apply-patch/apply-patch.js";
export { createChangeDirectoryTool } from "./change-directory.js";
export { jobToolFactories } from "./jobs/index.js";
export { createListFilesTool } from "./list-files.js";
export { createMakeDirectoryTool } from "./make-directory.js";
export { createMovePathTool } from "./move-path.js";
export { createRemovePathTool } from "./remove-path.js";
export { createSearchTextTool } from "./search-text.js";
export { createUseSkillTool } from "./use-skill.js";
export { createWebFetchTool } from "./web-fetch.js";
