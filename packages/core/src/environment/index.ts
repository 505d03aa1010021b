// The tool execution contract: the Environment that closes every call, its limits, markers and
// types. The built-in tools live in tools/ (see tools/index.ts), built on this contract.

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
  ToolEffect,
  ToolExecutionContext,
  ToolFactory,
  ToolResult,
} from "./types.js";
