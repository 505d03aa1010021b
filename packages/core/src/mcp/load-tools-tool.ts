import { partialToolCallOutput, type ToolSpec, toolListReady } from "@penguin/protocol";
import { DEFAULT_MAX_OUTPUT_LENGTH, DEFAULT_TOOL_TIMEOUT_MS } from "../environment/limits.js";
import type { BuiltinTool } from "../environment/types.js";
import type { McpToolCatalog } from "./catalog.js";
import { LOAD_MCP_TOOLS_TOOL } from "./limits.js";

/**
 * `load_mcp_tools {names}`: loads deferred MCP tools. The new tool list goes to `onLoaded` (the
 * session sends it from the next request on) and is yielded as a `tool_list_ready` event (recorded
 * in the trace, so a resumed session offers the same list).
 */
export function createLoadMcpToolsTool(
  catalog: McpToolCatalog,
  toolList: () => ToolSpec[],
  onLoaded?: (offered: ToolSpec[]) => void,
): BuiltinTool {
  return {
    name: LOAD_MCP_TOOLS_TOOL,
    definition: {
      name: LOAD_MCP_TOOLS_TOOL,
      description: catalog.description(),
      parameters: {
        type: "object",
        properties: {
          names: {
            type: "array",
            items: { type: "string", minLength: 1 },
            minItems: 1,
            description: "Names of tools from the list above, e.g. mcp__docs__search.",
          },
        },
        required: ["names"],
        additionalProperties: false,
      },
      // Loading a schema reads nothing outside Penguin and changes nothing.
      permission: "r",
      timeoutMs: DEFAULT_TOOL_TIMEOUT_MS,
      maxOutputLength: DEFAULT_MAX_OUTPUT_LENGTH,
    },
    async *execute(args, ctx) {
      const id = ctx.toolCallId;
      const names = (args.names as string[]).map((name) => name.trim());
      const outcome = catalog.load(names);
      const lines: string[] = [];
      if (outcome.loaded.length > 0) {
        lines.push(
          `Loaded: ${outcome.loaded.join(", ")}. They are in your tool list from your next step on.`,
        );
      }
      if (outcome.already.length > 0) lines.push(`Already loaded: ${outcome.already.join(", ")}.`);
      if (outcome.unknown.length > 0) {
        lines.push(
          `Not in the catalog: ${outcome.unknown.join(", ")}. Use the exact names listed in the description of ${LOAD_MCP_TOOLS_TOOL}.`,
        );
      }
      if (outcome.loaded.length > 0) {
        const offered = catalog.offered(toolList());
        onLoaded?.(offered);
        yield toolListReady(offered);
      }
      yield partialToolCallOutput("delta", id, lines.join("\n"));
      // Nothing loaded and nothing usable named: the model must correct the call.
      const usable = outcome.loaded.length + outcome.already.length;
      return usable === 0 ? { stopReason: "failed" } : {};
    },
  };
}
