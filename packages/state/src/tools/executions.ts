import type { ToolDefinitionConfig } from "./definition-parts.js";
import { DEFAULT_MAX_OUTPUT_LENGTH, objectSchema } from "./definition-parts.js";

// Retained work: "These tools work on what Penguin kept after a stop or a crash." An execution is
// one task of one agent of the session (its id `<agent_run_id>/<task>`), read from the traces.
// core's tools/executions/ implements them; @penguin/trace reads the executions.

/** The states an execution can be in (the trace's `ExecutionState`). */
const STATES = ["running", "paused", "interrupted", "completed", "failed"];
/** The parts read_execution reads (the trace's `EXECUTION_PARTS`). */
const PARTS = ["metadata", "context", "activities", "events", "inbox"];

/** search_executions: rows a page holds by default, and at most. */
export const DEFAULT_SEARCH_EXECUTIONS_ROWS = 20;
export const MAX_SEARCH_EXECUTIONS_ROWS = 100;

const page = {
  type: "integer",
  minimum: 1,
  default: 1,
  description: "The page to read (1-based); the output says how many there are.",
};

export const SEARCH_EXECUTIONS_DEFINITION: ToolDefinitionConfig = {
  name: "search_executions",
  description:
    "Find retained work of this session: each execution is one task of one agent (you or a child agent), with its id <agent_run_id>/<task>, state (running, paused, interrupted, completed, failed) and times. Filter by text, agent, agent_run_id, execution id, state, or time range. Reading never resumes anything.",
  parameters: objectSchema(
    {
      text: { type: "string", description: "Words in its prompt, messages, tool calls or outputs." },
      agent: { type: "string", description: "A named agent." },
      agent_run_id: { type: "string", description: "root, or a child's id (sub_N)." },
      execution_id: { type: "string", description: "An execution id (<agent_run_id>/<task>)." },
      state: { type: "string", enum: STATES },
      since: { type: "string", description: "A date and time (ISO format): active at or after it." },
      until: { type: "string", description: "A date and time (ISO format): started at or before it." },
      limit: {
        type: "integer",
        minimum: 1,
        maximum: MAX_SEARCH_EXECUTIONS_ROWS,
        default: DEFAULT_SEARCH_EXECUTIONS_ROWS,
        description: "Rows per page.",
      },
      page,
    },
    [],
  ),
  permission: "r",
  timeoutMs: 30_000,
  maxOutputLength: DEFAULT_MAX_OUTPUT_LENGTH,
};

export const READ_EXECUTION_DEFINITION: ToolDefinitionConfig = {
  name: "read_execution",
  description:
    "Read one execution without resuming it: metadata, context (its saved messages, tool calls and outputs), activities (model requests and tool calls with their states, uncertain ones included), events, or inbox (messages handed to it, and ones still waiting). Paged; long items are cut.",
  parameters: objectSchema(
    {
      execution_id: {
        type: "string",
        minLength: 1,
        description: "The id search_executions gave (<agent_run_id>/<task>).",
      },
      part: { type: "string", enum: PARTS, default: "metadata", description: "What to read." },
      page,
    },
    ["execution_id"],
  ),
  permission: "r",
  timeoutMs: 30_000,
  maxOutputLength: DEFAULT_MAX_OUTPUT_LENGTH,
};

export const RESUME_EXECUTION_DEFINITION: ToolDefinitionConfig = {
  name: "resume_execution",
  description:
    "Continue paused or interrupted work: a child agent's last task is relaunched on its own session (it works in the background and reports back as a launched agent does); your own interrupted task continues in this task. Use it only when the user asks you to, after reading the execution's saved history (read_execution) and checking the workspace for what was already done.",
  parameters: objectSchema(
    {
      execution_id: {
        type: "string",
        minLength: 1,
        description: "The execution to continue (<agent_run_id>/<task>).",
      },
    },
    ["execution_id"],
  ),
  // A relaunched agent works with its own tools, which may write.
  permission: "rw",
  timeoutMs: 60_000,
  maxOutputLength: DEFAULT_MAX_OUTPUT_LENGTH,
};

export const EXECUTION_TOOL_DEFINITIONS: readonly ToolDefinitionConfig[] = [
  SEARCH_EXECUTIONS_DEFINITION,
  READ_EXECUTION_DEFINITION,
  RESUME_EXECUTION_DEFINITION,
];
