import type { SystemConfig } from "@penguin/state";
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
