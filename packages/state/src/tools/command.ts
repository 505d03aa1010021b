import type { ToolDefinitionConfig } from "./definition-parts.js";
import {
  callDescription,
  DEFAULT_MAX_OUTPUT_LENGTH,
  DEFAULT_TOOL_TIMEOUT_MS,
  objectSchema,
} from "./definition-parts.js";

// exec_command and input_command: their definitions and every number their descriptions state.
// Core's tools/command/ implements them with these constants.

/**
 * "Command sessions: 64. When full, exited sessions are evicted first, then idle ones by LRU."
 * One cap shared by exec_command sessions and run_command jobs (the default of
 * `tools.limits.jobs.maxJobs`); core's ProcessManager enforces it (processes/process-manager.ts).
 */
export const MAX_COMMAND_SESSIONS = 64;
/**
 * "Command/subagent producers also keep a capped unread buffer (1 MiB per command session) that
 * drops oldest text with a marker." Counted in characters (UTF-16 code units) of decoded text.
 */
export const DEFAULT_UNREAD_BUFFER_CHARS = 1024 * 1024;

/** exec_command: "yield_time_ms … default 60000". */
export const DEFAULT_EXEC_YIELD_MS = 60_000;
/** exec_command: "yield_time_ms … minimum 250". */
export const MIN_EXEC_YIELD_MS = 250;
/** input_command: "yield_time_ms … defaults 250 for writes". */
export const DEFAULT_WRITE_YIELD_MS = 250;
/** input_command: "… 5000 for empty polls". */
export const DEFAULT_COMMAND_POLL_YIELD_MS = 5_000;
/** exec_command's timeout: the contract's default. */
export const EXEC_COMMAND_TIMEOUT_MS = DEFAULT_TOOL_TIMEOUT_MS;
/** input_command's timeout (the contract's table). */
export const INPUT_COMMAND_TIMEOUT_MS = 130_000;

export const EXEC_COMMAND_DEFINITION: ToolDefinitionConfig = {
  name: "exec_command",
  description:
    "Run a shell command in the workspace via `bash -lc`; returns its output and exit code. If it is still running after yield_time_ms, it continues in the background and the call returns the output so far and a process_id: use input_command to poll it, write to its stdin or send Ctrl-C.",
  parameters: objectSchema(
    {
      description: callDescription,
      cmd: { type: "string" },
      workdir: {
        type: "string",
        description: "Working directory; default the workspace root. Relative paths resolve against it.",
      },
      yield_time_ms: {
        type: "integer",
        default: DEFAULT_EXEC_YIELD_MS,
        description: `How long to wait in the foreground before backgrounding (min ${MIN_EXEC_YIELD_MS}).`,
      },
    },
    ["description", "cmd"],
  ),
  permission: "rw",
  timeoutMs: EXEC_COMMAND_TIMEOUT_MS,
  maxOutputLength: DEFAULT_MAX_OUTPUT_LENGTH,
};

export const INPUT_COMMAND_DEFINITION: ToolDefinitionConfig = {
  name: "input_command",
  description:
    "Drive a background command from exec_command: write to its stdin, send Ctrl-C, or poll. Returns the output since the last call, and the exit code once it has exited.",
  parameters: objectSchema(
    {
      description: callDescription,
      process_id: { type: "string", description: "The process_id returned by exec_command." },
      chars: {
        type: "string",
        description: 'Text for stdin ("\\n" submits a line); "\\u0003" alone sends Ctrl-C. Omit to poll.',
      },
      yield_time_ms: {
        type: "integer",
        description: `How long to wait for output; default ${DEFAULT_WRITE_YIELD_MS} after a write, ${DEFAULT_COMMAND_POLL_YIELD_MS} for a poll.`,
      },
    },
    ["description", "process_id"],
  ),
  permission: "rw",
  timeoutMs: INPUT_COMMAND_TIMEOUT_MS,
  maxOutputLength: DEFAULT_MAX_OUTPUT_LENGTH,
};

export const COMMAND_TOOL_DEFINITIONS: readonly ToolDefinitionConfig[] = [
  EXEC_COMMAND_DEFINITION,
  INPUT_COMMAND_DEFINITION,
];
