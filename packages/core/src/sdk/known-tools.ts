import { resolveToolset, type SystemConfig } from "@penguin/state";
import type { ToolNameCheck } from "../hooks/hook-set.js";
import { LOAD_MCP_TOOLS_TOOL, READ_MCP_RESOURCE_TOOL } from "../mcp/limits.js";
import { mcpToolPrefix } from "../mcp/tool-names.js";
import { extendedToolFactories } from "../tools/extended/index.js";
import { BUILTIN_TOOL_FACTORIES } from "../tools/registry.js";
import { SUBAGENT_TOOL_NAMES } from "../tools/subagent/index.js";

// The tool names configuration may refer to (`allowed_tools`, a hook's `tools`): what the agent
// can have whatever the model, the tools registered in code, and the tools of its MCP servers.
// MCP servers connect lazily, when a session's first task starts, so their tools are known only by
// the `mcp__<server>__` prefix.

/** Checks tool names against an agent's tools; `describe` lists them for an error message. */
export function knownTools(config: SystemConfig, customToolNames: readonly string[]): ToolNameCheck {
  // MCP servers may bring read_mcp_resource and load_mcp_tools too (known once they connect).
  const mcpExtras = config.tools.mcpServers.length > 0 ? [READ_MCP_RESOURCE_TOOL, LOAD_MCP_TOOLS_TOOL] : [];
  const names = [
    ...new Set([...resolveToolset(config).map((tool) => tool.name), ...customToolNames, ...mcpExtras]),
  ];
  const known = new Set(names);
  const mcpPrefixes = config.tools.mcpServers.map((server) => mcpToolPrefix(server.name));
  return {
    has: (name) =>
      known.has(name) || mcpPrefixes.some((prefix) => name.startsWith(prefix) && name.length > prefix.length),
    describe: () => {
      const mcpNote =
        mcpPrefixes.length > 0
          ? `, or an MCP tool named ${mcpPrefixes.map((p) => `${p}<tool>`).join(" / ")}`
          : "";
      return `${names.join(", ")}${mcpNote}`;
    },
  };
}

/**
 * The built-in tools of an agent's toolset, by name: a custom tool may not take one of these
 * (a toolset entry that no built-in implements is left out of sessions, so its name is free).
 */
export function builtinToolNames(config: SystemConfig): string[] {
  const implemented = new Set([
    ...Object.keys(BUILTIN_TOOL_FACTORIES),
    ...Object.keys(extendedToolFactories()),
    ...SUBAGENT_TOOL_NAMES,
  ]);
  return resolveToolset(config)
    .map((tool) => tool.name)
    .filter((name) => implemented.has(name));
}
