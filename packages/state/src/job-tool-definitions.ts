import { z } from "zod";
import { DEFAULT_MAX_OUTPUT_LENGTH, type ToolDefinitionConfig } from "./tool-definitions.js";
import { DEFAULT_UNREAD_BUFFER_CHARS, MAX_COMMAND_SESSIONS } from "./tools/command.js";
import { deepFreeze, type JsonSchema, objectSchema } from "./tools/definition-parts.js";

// The job tools of the extended toolset ("Running commands"): run_command, list_jobs,
// read_job_output, wait_job and signal_job, with the limits behind each of their bounds. "Jobs and
// exec_command sessions are one kind of thing: one process manager, one id namespace, one cap,
// and list_jobs shows both": the job tools take the same ids (`cmd_N`) exec_command returns.

// ---- Limits ("Every cap and default of these tools … is a config key with a documented default").

/** "Command sessions: 64" — one cap shared by run_command jobs and exec_command sessions. */
export const DEFAULT_JOBS_MAX_JOBS = MAX_COMMAND_SESSIONS;
/**
 * "a capped unread buffer (1 MiB per command session) that drops oldest text with a marker": the
 * output each job (or exec_command session) keeps, in characters.
 */
export const DEFAULT_JOBS_BUFFER_CHARS = DEFAULT_UNREAD_BUFFER_CHARS;
/** run_command: "timeout bounds how long the call waits, never how long the command may run". */
export const DEFAULT_RUN_COMMAND_TIMEOUT_MS = 30_000;
/** wait_job: how long a call waits for the exit (or the pattern) when it names no timeout. */
export const DEFAULT_WAIT_JOB_TIMEOUT_MS = 30_000;
/** wait_job: a line longer than this is matched by its last this-many characters only. */
export const DEFAULT_WAIT_JOB_MAX_LINE_CHARS = 64 * 1024;
/**
 * wait_job: how long `pattern` may run on one line of output (it runs in a worker thread); past
 * it the wait ends and says so, and the job keeps running.
 */
export const DEFAULT_WAIT_JOB_REGEX_TIMEOUT_MS = 10_000;
/** read_job_output: the lines a window shows when the call names no limit. */
export const DEFAULT_READ_JOB_OUTPUT_LINES = 100;
/** read_job_output: the most lines one window shows, whatever the call asks for. */
export const DEFAULT_READ_JOB_OUTPUT_MAX_LINES = 2_000;
/** read_job_output: a longer line is cut to this many characters in the window. */
export const DEFAULT_READ_JOB_OUTPUT_MAX_LINE_CHARS = 2_000;
/** list_jobs: the newest lines of buffered output shown for each job. */
export const DEFAULT_LIST_JOBS_TAIL_LINES = 3;
/** list_jobs: a longer line (or command) is cut to this many characters. */
export const DEFAULT_LIST_JOBS_MAX_LINE_CHARS = 200;
/** signal_job `stop`: "SIGTERM to the whole process group, then SIGKILL" after this grace. */
export const DEFAULT_SIGNAL_JOB_GRACE_MS = 1_000;

/** The `tools.limits` sections of the job tools (merged into ToolLimitsSchema), built when called. */
export function jobToolLimitsShape() {
  const positiveInt = z.number().int().positive();
  return {
    jobs: z
      .strictObject({
        maxJobs: positiveInt.default(DEFAULT_JOBS_MAX_JOBS),
        bufferChars: positiveInt.default(DEFAULT_JOBS_BUFFER_CHARS),
      })
      .default(() => ({ maxJobs: DEFAULT_JOBS_MAX_JOBS, bufferChars: DEFAULT_JOBS_BUFFER_CHARS })),
    run_command: z
      .strictObject({ defaultTimeoutMs: positiveInt.default(DEFAULT_RUN_COMMAND_TIMEOUT_MS) })
      .default(() => ({ defaultTimeoutMs: DEFAULT_RUN_COMMAND_TIMEOUT_MS })),
    wait_job: z
      .strictObject({
        defaultTimeoutMs: positiveInt.default(DEFAULT_WAIT_JOB_TIMEOUT_MS),
        maxLineChars: positiveInt.default(DEFAULT_WAIT_JOB_MAX_LINE_CHARS),
        regexTimeoutMs: positiveInt.default(DEFAULT_WAIT_JOB_REGEX_TIMEOUT_MS),
      })
      .default(() => ({
        defaultTimeoutMs: DEFAULT_WAIT_JOB_TIMEOUT_MS,
        maxLineChars: DEFAULT_WAIT_JOB_MAX_LINE_CHARS,
        regexTimeoutMs: DEFAULT_WAIT_JOB_REGEX_TIMEOUT_MS,
      })),
    read_job_output: z
      .strictObject({
        defaultLines: positiveInt.default(DEFAULT_READ_JOB_OUTPUT_LINES),
        maxLines: positiveInt.default(DEFAULT_READ_JOB_OUTPUT_MAX_LINES),
        maxLineChars: positiveInt.default(DEFAULT_READ_JOB_OUTPUT_MAX_LINE_CHARS),
      })
      .default(() => ({
        defaultLines: DEFAULT_READ_JOB_OUTPUT_LINES,
        maxLines: DEFAULT_READ_JOB_OUTPUT_MAX_LINES,
        maxLineChars: DEFAULT_READ_JOB_OUTPUT_MAX_LINE_CHARS,
      })),
    list_jobs: z
      .strictObject({
        tailLines: z.number().int().nonnegative().default(DEFAULT_LIST_JOBS_TAIL_LINES),
        maxLineChars: positiveInt.default(DEFAULT_LIST_JOBS_MAX_LINE_CHARS),
      })
      .default(() => ({
        tailLines: DEFAULT_LIST_JOBS_TAIL_LINES,
        maxLineChars: DEFAULT_LIST_JOBS_MAX_LINE_CHARS,
      })),
    signal_job: z
      .strictObject({ graceMs: positiveInt.default(DEFAULT_SIGNAL_JOB_GRACE_MS) })
      .default(() => ({ graceMs: DEFAULT_SIGNAL_JOB_GRACE_MS })),
  };
}

// ---- Definitions.

/**
 * run_command's `purpose`: recorded with the job (list_jobs shows it) and shown by the front ends
 * as the call's description. It is part of the tool's contract ("a required purpose"), so
 * `call_description: false` does not remove it.
 */
export const PURPOSE_PROPERTY = "purpose";

const jobId: JsonSchema = {
  type: "string",
  description: "The job id (cmd_N) from run_command, exec_command or list_jobs.",
};
const waitMs = (what: string): JsonSchema => ({ type: "integer", minimum: 0, description: what });

/** The job tools, in the order the extended preset lists them. */
export const JOB_TOOL_DEFINITIONS: readonly ToolDefinitionConfig[] = deepFreeze([
  {
    name: "run_command",
    description:
      "Run a shell command (bash -lc) in the workspace, or in directory. Waits up to timeout_ms for it to end and returns its output and exit code. timeout_ms bounds the wait, never the command: one still running then keeps running as a background job, and the last line gives its job_id for wait_job, read_job_output and signal_job.",
    parameters: objectSchema(
      {
        [PURPOSE_PROPERTY]: {
          type: "string",
          minLength: 1,
          description: "Why you run it, in one sentence; shown to the user and by list_jobs. Write it first.",
        },
        command: { type: "string", minLength: 1 },
        directory: {
          type: "string",
          description: "Working directory; default the workspace root. Relative paths resolve against it.",
        },
        timeout_ms: waitMs(`How long to wait before returning; default ${DEFAULT_RUN_COMMAND_TIMEOUT_MS}.`),
      },
      [PURPOSE_PROPERTY, "command"],
    ),
    permission: "rw",
    timeoutMs: 610_000,
    maxOutputLength: DEFAULT_MAX_OUTPUT_LENGTH,
  },
  {
    name: "list_jobs",
    description:
      "List this session's commands (run_command jobs and exec_command sessions), running and finished: id, state, exit, timings, purpose, command, and the newest lines of their buffered output.",
    parameters: objectSchema(
      {
        state: {
          type: "string",
          enum: ["all", "running", "exited"],
          default: "all",
          description: "Which jobs to list.",
        },
      },
      [],
    ),
    permission: "r",
    timeoutMs: 30_000,
    maxOutputLength: DEFAULT_MAX_OUTPUT_LENGTH,
  },
  {
    name: "read_job_output",
    description:
      "Read a window of a job's buffered output lines at once, without waiting and without consuming it. Without offset, the newest lines. The last line gives the range, the total and dropped: a non-zero dropped count means the buffer lost its oldest lines.",
    parameters: objectSchema(
      {
        job_id: jobId,
        offset: {
          type: "integer",
          minimum: 1,
          description: "First line (1-based, counted from the job's start).",
        },
        limit: {
          type: "integer",
          minimum: 1,
          description: `Lines to show; default ${DEFAULT_READ_JOB_OUTPUT_LINES}.`,
        },
      },
      ["job_id"],
    ),
    permission: "r",
    timeoutMs: 30_000,
    maxOutputLength: DEFAULT_MAX_OUTPUT_LENGTH,
  },
  {
    name: "wait_job",
    description:
      'Wait until a job exits, or until a line of its new output matches pattern (e.g. a server\'s "listening"), or until timeout_ms passes. Returns the output since it was last returned, its state and exit code. The job keeps running when the wait ends.',
    parameters: objectSchema(
      {
        job_id: jobId,
        pattern: {
          type: "string",
          minLength: 1,
          description: "A JavaScript regular expression tested against each new output line.",
        },
        timeout_ms: waitMs(`How long to wait; default ${DEFAULT_WAIT_JOB_TIMEOUT_MS}.`),
      },
      ["job_id"],
    ),
    permission: "r",
    timeoutMs: 610_000,
    maxOutputLength: DEFAULT_MAX_OUTPUT_LENGTH,
  },
  {
    name: "signal_job",
    description:
      "Stop a job with its whole process group. stop: SIGTERM, then SIGKILL if it is still alive after a short grace. kill: SIGKILL at once. Returns how it ended; its output stays readable with read_job_output.",
    parameters: objectSchema(
      {
        job_id: jobId,
        signal: { type: "string", enum: ["stop", "kill"], default: "stop" },
      },
      ["job_id"],
    ),
    permission: "rw",
    timeoutMs: 30_000,
    maxOutputLength: DEFAULT_MAX_OUTPUT_LENGTH,
  },
]);
