import type { ToolSpec } from "@penguin/protocol";
import type { McpToolBudget } from "@penguin/state";

// "No guard on tool count or size: nine ordinary servers gave 136 tools and a 62 KB first
// request (OpenAI documents 128 functions as its maximum). Warn past a configurable count and
// size, and offer deferred loading."

/** The bytes the tool list adds to a request: each tool's name, description and schema as JSON. */
export function toolListBytes(specs: readonly ToolSpec[]): number {
  const sent = specs.map(({ name, description, parameters }) => ({ name, description, parameters }));
  return Buffer.byteLength(JSON.stringify(sent), "utf8");
}

/** Whether the MCP tools' schemas wait for `load_mcp_tools` (`tools.mcpToolBudget.deferLoading`). */
export function defersLoading(mcpToolCount: number, budget: McpToolBudget): boolean {
  if (mcpToolCount === 0) return false;
  if (budget.deferLoading === "always") return true;
  if (budget.deferLoading === "never") return false;
  return mcpToolCount > budget.deferAboveTools;
}

/** One warning line per limit the offered tool list is past (none when it is within both). */
export function toolBudgetWarnings(
  offered: readonly ToolSpec[],
  budget: McpToolBudget,
  deferred: boolean,
): string[] {
  const hint = deferred
    ? "disable MCP servers you do not need"
    : "set tools.mcpToolBudget.deferLoading: always, or disable MCP servers you do not need";
  const warnings: string[] = [];
  if (offered.length > budget.warnToolCount) {
    warnings.push(
      `the session offers ${offered.length} tools, more than tools.mcpToolBudget.warnToolCount (${budget.warnToolCount}); some providers refuse requests with more than 128 tools: ${hint}`,
    );
  }
  const bytes = toolListBytes(offered);
  if (bytes > budget.warnToolBytes) {
    warnings.push(
      `the tool list is ${bytes} bytes, more than tools.mcpToolBudget.warnToolBytes (${budget.warnToolBytes}), and is sent with every request: ${hint}`,
    );
  }
  return warnings;
}
