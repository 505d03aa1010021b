import type { ToolDefinitionConfig } from "./definition-parts.js";
import { callDescription, DEFAULT_MAX_OUTPUT_LENGTH, objectSchema } from "./definition-parts.js";

// run_subagent and input_subagent: their definitions and every number their descriptions state.
// Core's tools/subagent/ implements them with these constants.

/** run_subagent: "yield_time_ms?: number; // foreground wait; default 300000". */
export const DEFAULT_RUN_YIELD_MS = 300_000;
/** input_subagent: "yield_time_ms?: number; // wait; defaults 300000 with a prompt, …". */
export const DEFAULT_FOLLOW_UP_YIELD_MS = 300_000;
/** input_subagent: "… 10000 for empty polls". */
export const DEFAULT_SUBAGENT_POLL_YIELD_MS = 10_000;
/** The subagent tools' timeout (the contract's table). */
export const SUBAGENT_TOOL_TIMEOUT_MS = 600_000;

export const RUN_SUBAGENT_DEFINITION: ToolDefinitionConfig = {
  name: "run_subagent",
  description:
    "Delegate a self-contained subtask to a child agent in the same workspace. The prompt must hold all the context it needs and say exactly what to return. If it is still running after yield_time_ms, the call returns a subagent_id for input_subagent. A subagent cannot start subagents.",
  parameters: objectSchema(
    {
      description: callDescription,
      prompt: { type: "string", description: "The complete subtask and the exact result expected." },
      agent_id: { type: "string", description: "The child's agent; default this agent." },
      model_id: {
        type: "string",
        description: "The child's model; requires provider. Omit both to use this session's model.",
      },
      provider: { type: "string", description: "The provider group of model_id." },
      yield_time_ms: {
        type: "integer",
        default: DEFAULT_RUN_YIELD_MS,
        description: "How long to wait in the foreground before backgrounding.",
      },
    },
    ["description", "prompt"],
  ),
  permission: "rw",
  timeoutMs: SUBAGENT_TOOL_TIMEOUT_MS,
  maxOutputLength: DEFAULT_MAX_OUTPUT_LENGTH,
};

export const INPUT_SUBAGENT_DEFINITION: ToolDefinitionConfig = {
  name: "input_subagent",
  description:
    "Poll a background subagent from run_subagent, or send it a follow-up prompt once it is idle. Returns its new output.",
  parameters: objectSchema(
    {
      description: callDescription,
      subagent_id: { type: "string", description: "The subagent_id returned by run_subagent." },
      prompt: {
        type: "string",
        description: "Follow-up task (only while the subagent is idle). Omit to poll.",
      },
      yield_time_ms: {
        type: "integer",
        description: `How long to wait; default ${DEFAULT_FOLLOW_UP_YIELD_MS} with a prompt, ${DEFAULT_SUBAGENT_POLL_YIELD_MS} for a poll.`,
      },
    },
    ["description", "subagent_id"],
  ),
  permission: "rw",
  timeoutMs: SUBAGENT_TOOL_TIMEOUT_MS,
  maxOutputLength: DEFAULT_MAX_OUTPUT_LENGTH,
};
