import type { ToolDefinitionConfig } from "./definition-parts.js";
import { DEFAULT_MAX_OUTPUT_LENGTH, objectSchema } from "./definition-parts.js";

// read_file, edit_file and write_file: their definitions and every number their descriptions
// state. Core's read-file/, edit-file/ and write-file/ folders implement them.

/** "read_file … offset?: number; // 1-based line to start from; default 1". */
export const READ_FILE_DEFAULT_OFFSET = 1;
/** "limit?: number; // max lines returned; default 2000". */
export const READ_FILE_DEFAULT_LIMIT = 2_000;
/** The file tools' timeout (the contract's table). */
export const FILE_TOOL_TIMEOUT_MS = 30_000;

export const READ_FILE_DEFINITION: ToolDefinitionConfig = {
  name: "read_file",
  description:
    "Read a text file as numbered lines (cat -n). Page through long files with offset and limit. Binary files are refused.",
  parameters: objectSchema(
    {
      file_path: { type: "string" },
      offset: {
        type: "integer",
        minimum: 1,
        default: READ_FILE_DEFAULT_OFFSET,
        description: "First line (1-based).",
      },
      limit: { type: "integer", minimum: 1, default: READ_FILE_DEFAULT_LIMIT, description: "Maximum lines." },
    },
    ["file_path"],
  ),
  permission: "r",
  timeoutMs: FILE_TOOL_TIMEOUT_MS,
  maxOutputLength: DEFAULT_MAX_OUTPUT_LENGTH,
};

export const EDIT_FILE_DEFINITION: ToolDefinitionConfig = {
  name: "edit_file",
  description:
    "Replace exact text in an existing file: old_string (whitespace included) must occur exactly once, unless replace_all is true; new_string must differ. Returns a diff of the change.",
  parameters: objectSchema(
    {
      file_path: { type: "string" },
      old_string: { type: "string" },
      new_string: { type: "string" },
      replace_all: { type: "boolean", default: false, description: "Replace every occurrence." },
    },
    ["file_path", "old_string", "new_string"],
  ),
  permission: "rw",
  timeoutMs: FILE_TOOL_TIMEOUT_MS,
  maxOutputLength: DEFAULT_MAX_OUTPUT_LENGTH,
};

export const WRITE_FILE_DEFINITION: ToolDefinitionConfig = {
  name: "write_file",
  description:
    "Create or overwrite a whole file, creating parent directories. For small changes to an existing file use edit_file.",
  parameters: objectSchema(
    {
      file_path: { type: "string" },
      content: { type: "string", description: "The complete new content." },
    },
    ["file_path", "content"],
  ),
  permission: "rw",
  timeoutMs: FILE_TOOL_TIMEOUT_MS,
  maxOutputLength: DEFAULT_MAX_OUTPUT_LENGTH,
};
