import type { ToolSpec } from "@penguin/protocol";
import type { McpToolBudget } from "@penguin/state";
import type { BuiltinTool } from "../environment/types.js";
import { McpToolCatalog, oneLineDescription } from "./catalog.js";
import type { McpConnection } from "./connection.js";
import { LOAD_MCP_TOOLS_TOOL, READ_MCP_RESOURCE_TOOL } from "./limits.js";
import { createLoadMcpToolsTool } from "./load-tools-tool.js";
import { createReadMcpResourceTool } from "./read-resource-tool.js";
import { defersLoading } from "./tool-budget.js";

// The tools the MCP servers of a session bring besides their own: `read_mcp_resource` ("offered
// only when a connected server has resources") and, past the threshold, `load_mcp_tools` with the
// catalog of the deferred tools.

export interface McpCatalogInput {
  /** The servers' tools as named for this session (unavailable recorded ones included). */
  mcpTools: readonly BuiltinTool[];
  connected: readonly McpConnection[];
  budget?: McpToolBudget;
  reservedNames: readonly string[];
  allowedTools?: readonly string[];
  /** The tool list the trace recorded last: the MCP tools in it were loaded before (a resume). */
  recordedTools?: readonly ToolSpec[];
  toolList?: () => ToolSpec[];
  /** Called with the new offered list after a `load_mcp_tools` call loaded tools. */
  onLoaded?: (offered: ToolSpec[]) => void;
  warn(line: string): void;
}

export interface McpCatalogSetup {
  /** `read_mcp_resource` and `load_mcp_tools`, when offered. */
  tools: BuiltinTool[];
  /** Present when the MCP tools' schemas are deferred. */
  catalog?: McpToolCatalog;
}

function allowed(name: string, input: McpCatalogInput): boolean {
  return input.allowedTools === undefined || input.allowedTools.includes(name);
}

/** Whether the session can offer `name` (allowed, and not the name of another of its tools). */
function canOffer(name: string, input: McpCatalogInput): boolean {
  if (!allowed(name, input)) return false;
  if (input.reservedNames.includes(name)) {
    input.warn(`"${name}" is not offered: another tool of the session has that name`);
    return false;
  }
  return true;
}

export function catalogTools(input: McpCatalogInput): McpCatalogSetup {
  const tools: BuiltinTool[] = [];
  const withResources = input.connected.filter((connection) => connection.hasResources);
  if (withResources.length > 0 && canOffer(READ_MCP_RESOURCE_TOOL, input)) {
    tools.push(createReadMcpResourceTool(withResources));
  }
  // Only tools the session offers at all go into the catalog (`allowed_tools` may leave some out).
  const deferrable = input.mcpTools.filter((tool) => allowed(tool.name, input));
  if (
    !input.budget ||
    !input.toolList ||
    !defersLoading(deferrable.length, input.budget) ||
    !canOffer(LOAD_MCP_TOOLS_TOOL, input)
  ) {
    return { tools };
  }
  const entries = deferrable.map((tool) => ({
    name: tool.name,
    description: oneLineDescription(tool.definition.description),
  }));
  const catalog = new McpToolCatalog(
    entries,
    (input.recordedTools ?? []).map((spec) => spec.name),
  );
  tools.push(createLoadMcpToolsTool(catalog, input.toolList, input.onLoaded));
  return { tools, catalog };
}
