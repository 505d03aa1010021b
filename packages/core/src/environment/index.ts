// The tool execution contract: the Environment that closes every call, the built-in tool
// registry and the file and image tools. Core's index re-exports this surface.

export { createDescribeImageTool } from "../tools/describe-image.js";
export { createEditFileTool } from "../tools/edit-file.js";
export { type ImageMimeType, sniffImageType } from "../tools/image-source.js";
export { createReadFileTool } from "../tools/read-file.js";
export { createReadImageTool } from "../tools/read-image.js";
export {
  BUILTIN_TOOL_FACTORIES,
  type BuiltinToolset,
  createBuiltinTools,
  selectToolsForModel,
} from "../tools/registry.js";
export { createWriteFileTool } from "../tools/write-file.js";
export { Environment, type EnvironmentOptions, type ExecuteToolOptions } from "./environment.js";
export {
  ABORT_GRACE_MS,
  ARCHIVE_BUDGET_BYTES,
  IMAGE_MAX_BYTES,
  READ_FILE_DEFAULT_LIMIT,
  READ_FILE_MAX_LINE_CHARS,
  READ_FILE_SCAN_CAP_BYTES,
} from "./limits.js";
export {
  DENIED_BY_POLICY_TEXT,
  DENIED_BY_USER_TEXT,
  DENIED_NO_TERMINAL_TEXT,
  INTERRUPTED_MARKER,
  NO_OUTPUT_MARKER,
  REDACTED_MARKER,
  TOOL_ERROR_PREFIX,
  timeoutMarker,
  truncationMarker,
} from "./markers.js";
export type {
  BuiltinTool,
  DescribeImageFn,
  ToolExecutionContext,
  ToolFactory,
  ToolResult,
} from "./types.js";
