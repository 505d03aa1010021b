import { resolveToolset, type SystemConfig } from "@penguin/state";
import { mcpToolPrefix } from "../mcp/tool-names.js";
import { SetupError } from "./setup-error.js";

// "`allowed-tools`: a per-agent (and per-child-agent) list that limits which tools the model is
// offered; a name that no tool has is a configuration error with a clear message." The list is
// the agent's `allowed_tools`; a subagent session follows its own agent's list.

/**
 * Checks every name of `allowed_tools` against the tools the agent can have: its toolset
 * (whatever the model), the tools registered in code, and the `mcp__<server>__…` names of its MCP
 * servers (their tools are known only once connected). Throws a SetupError naming each unknown
 * name and the tools there are.
 */
export function checkAllowedTools(
  agentId: string,
  config: SystemConfig,
  customToolNames: readonly string[],
): void {
  const allowed = config.allowed_tools;
  if (allowed === undefined) return;
  const known = new Set([...resolveToolset(config).map((tool) => tool.name), ...customToolNames]);
  const mcpPrefixes = config.tools.mcpServers.map((server) => mcpToolPrefix(server.name));
  const unknown = allowed.filter(
    (name) =>
      !known.has(name) &&
      !mcpPrefixes.some((prefix) => name.startsWith(prefix) && name.length > prefix.length),
  );
  if (unknown.length === 0) return;
  const names = unknown.map((name) => `"${name}"`).join(", ");
  const mcpNote =
    mcpPrefixes.length > 0
      ? `, or an MCP tool named ${mcpPrefixes.map((p) => `${p}<tool>`).join(" / ")}`
      : "";
  throw new SetupError(
    `agent "${agentId}": allowed_tools names ${names}, which no tool has. The agent's tools are: ${[...known].join(", ")}${mcpNote}. Fix the name or remove it from allowed_tools.`,
    "config",
  );
}
