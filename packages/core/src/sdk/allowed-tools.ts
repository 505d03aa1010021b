import { MESSAGING_TOOL_NAMES, type SystemConfig } from "@penguin/state";
import { knownTools } from "./known-tools.js";
import { SetupError } from "./setup-error.js";

// "`allowed-tools`: a per-agent (and per-child-agent) list that limits which tools the model is
// offered; a name that no tool has is a configuration error with a clear message." The list is
// the agent's `allowed_tools`; a subagent session follows its own agent's list.

/**
 * Checks every name of `allowed_tools` against the tools the agent can have (see `knownTools`).
 * Throws a SetupError naming each unknown name and the tools there are.
 */
export function checkAllowedTools(
  agentId: string,
  config: SystemConfig,
  customToolNames: readonly string[],
): void {
  const allowed = config.allowed_tools;
  if (allowed === undefined) return;
  const tools = knownTools(config, customToolNames);
  const unknown = allowed.filter((name) => !tools.has(name));
  if (unknown.length === 0) return;
  const names = unknown.map((name) => `"${name}"`).join(", ");
  throw new SetupError(
    `agent "${agentId}": allowed_tools names ${names}, which no tool has. The agent's tools are: ${tools.describe()}. Fix the name or remove it from allowed_tools.`,
    "config",
  );
}

/**
 * The names a session lets through: `allowed_tools` plus the messaging tools, which "every agent
 * has whatever `allowed_tools` says" (an agent that cannot read its inbox could never be told to
 * stop or be answered). Undefined (no list) lets everything through. The messaging tools still
 * come only with a toolset that has them (the extended preset).
 */
export function effectiveAllowedTools(allowed: readonly string[] | undefined): readonly string[] | undefined {
  if (allowed === undefined) return undefined;
  return [...new Set([...allowed, ...MESSAGING_TOOL_NAMES])];
}
