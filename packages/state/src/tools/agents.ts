import type { ToolDefinitionConfig } from "./definition-parts.js";
import { DEFAULT_MAX_OUTPUT_LENGTH, objectSchema } from "./definition-parts.js";

// launch_agent and stop_agent: the child-agent tree of a session ("Children may launch children
// (depth and concurrency caps, configurable …)"). Their definitions and every number their
// descriptions state; core's tools/agents/ implements them with these constants.

/** `agent_definition.instructions`: "instructions (required, ≤ 64 KiB)", in UTF-8 bytes. */
export const MAX_AGENT_INSTRUCTIONS_BYTES = 64 * 1024;
/**
 * "A launched child that finishes sends its launcher a message … (the status and its final
 * answer, bounded in size)": the answer's characters kept in that message; the rest is cut.
 */
export const MAX_FINISHED_ANSWER_CHARS = 8_000;
/** Stopping waits for the tasks to end and for process groups (SIGTERM, then SIGKILL). */
const STOP_AGENT_TIMEOUT_MS = 60_000;

export const LAUNCH_AGENT_DEFINITION: ToolDefinitionConfig = {
  name: "launch_agent",
  description:
    "Start a child agent on a task and return its agent_run_id at once; it works in the background. Give exactly one of agent (a named agent from the system prompt) or agent_definition. Talk to it with send_message / wait_messages; when its task ends you get a message from it with its status and final answer.",
  parameters: objectSchema(
    {
      task: { type: "string", minLength: 1, description: "The complete task and what to report back." },
      agent: { type: "string", description: "A named agent to run." },
      agent_definition: {
        type: "object",
        description: "An agent defined here instead of a named one.",
        properties: {
          instructions: {
            type: "string",
            minLength: 1,
            description: `Its instructions (at most ${MAX_AGENT_INSTRUCTIONS_BYTES} bytes).`,
          },
          allowed_tools: {
            type: "array",
            items: { type: "string" },
            description: "The tools it may use; default yours.",
          },
          model: { type: "string", description: '"provider/model"; default your model.' },
        },
        required: ["instructions"],
        additionalProperties: false,
      },
    },
    ["task"],
  ),
  permission: "rw",
  timeoutMs: 60_000,
  maxOutputLength: DEFAULT_MAX_OUTPUT_LENGTH,
};

export const STOP_AGENT_DEFINITION: ToolDefinitionConfig = {
  name: "stop_agent",
  description:
    "Stop a child agent you launched (or one of its descendants): its task, every agent it launched, and every command and job they run. Reports what was stopped.",
  parameters: objectSchema(
    { agent_run_id: { type: "string", minLength: 1, description: "The id launch_agent returned." } },
    ["agent_run_id"],
  ),
  // Stopping changes no file; it ends processes the agents started.
  permission: "r",
  timeoutMs: STOP_AGENT_TIMEOUT_MS,
  maxOutputLength: DEFAULT_MAX_OUTPUT_LENGTH,
};

export const AGENT_TREE_TOOL_DEFINITIONS: readonly ToolDefinitionConfig[] = [
  LAUNCH_AGENT_DEFINITION,
  STOP_AGENT_DEFINITION,
];
