import { MAX_AGENT_INSTRUCTIONS_BYTES } from "@penguin/state";
import { type Parsed, requiredString } from "../command/call-arguments.js";

/**
 * Argument checks of launch_agent. The Environment validates arguments against the JSON Schema
 * first; these checks still run so that a bad value comes back as a message the model can act on.
 */

export interface InlineAgent {
  instructions: string;
  allowedTools?: string[];
  model?: { provider: string; modelId: string };
}

export type LaunchAgentArgs = { task: string } & ({ agent: string } | { inline: InlineAgent });

export function parseLaunchAgentArgs(args: Record<string, unknown>): Parsed<LaunchAgentArgs> {
  const task = requiredString(args, "task");
  if (!task.ok) return task;
  if (task.value.trim() === "")
    return { ok: false, error: 'argument "task" is empty: say what the agent should do' };
  const named = args.agent;
  const definition = args.agent_definition;
  // "exactly one of `agent` … or `agent_definition`".
  if ((named === undefined) === (definition === undefined)) {
    return {
      ok: false,
      error:
        'give exactly one of "agent" (a named agent of the system prompt) and "agent_definition" ({instructions, allowed_tools?, model?})',
    };
  }
  if (named !== undefined) {
    if (typeof named !== "string" || named.trim() === "") {
      return { ok: false, error: 'argument "agent" must be the name of a named agent' };
    }
    return { ok: true, value: { task: task.value, agent: named.trim() } };
  }
  const inline = parseInlineAgent(definition);
  return inline.ok ? { ok: true, value: { task: task.value, inline: inline.value } } : inline;
}

function parseInlineAgent(value: unknown): Parsed<InlineAgent> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return {
      ok: false,
      error: 'argument "agent_definition" must be an object {instructions, allowed_tools?, model?}',
    };
  }
  const fields = value as Record<string, unknown>;
  const instructions = fields.instructions;
  if (typeof instructions !== "string" || instructions.trim() === "") {
    return {
      ok: false,
      error: "agent_definition.instructions is required: the child's instructions, as text",
    };
  }
  const bytes = Buffer.byteLength(instructions, "utf8");
  if (bytes > MAX_AGENT_INSTRUCTIONS_BYTES) {
    return {
      ok: false,
      error: `agent_definition.instructions has ${bytes} bytes, over the limit of ${MAX_AGENT_INSTRUCTIONS_BYTES}; shorten them (put long material in a file the agent reads)`,
    };
  }
  const inline: InlineAgent = { instructions };
  const tools = fields.allowed_tools;
  if (tools !== undefined) {
    if (!Array.isArray(tools) || !tools.every((name): name is string => typeof name === "string")) {
      return { ok: false, error: "agent_definition.allowed_tools must be a list of tool names" };
    }
    inline.allowedTools = [...new Set(tools.map((name) => name.trim()))];
  }
  const model = fields.model;
  if (model !== undefined) {
    const slash = typeof model === "string" ? model.indexOf("/") : -1;
    if (typeof model !== "string" || slash <= 0 || slash === model.length - 1) {
      return {
        ok: false,
        error: `agent_definition.model must be "provider/model" (e.g. "anthropic/claude-sonnet-4-5"), got ${JSON.stringify(model)}; omit it to use your model`,
      };
    }
    inline.model = { provider: model.slice(0, slash).trim(), modelId: model.slice(slash + 1).trim() };
  }
  return { ok: true, value: inline };
}
