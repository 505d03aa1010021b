// MCP servers (`tools.mcpServers`) through the official @modelcontextprotocol/sdk client: their
// tools join a session's toolset as `mcp__<server>__<tool>` under the same execution contract and
// approval as every other tool.

export { unavailableText } from "./call-failure.js";
export { type MappedResult, mapCallResult } from "./call-result.js";
export { McpConnectError, McpConnection, type McpServerConfig } from "./connection.js";
export {
  MCP_SECRET_MIN_LENGTH,
  MCP_STDERR_TAIL_CHARS,
  MCP_TOOL_NAME_MAX_LENGTH,
  MCP_TOOL_PREFIX,
} from "./limits.js";
export { createMcpTool, mcpToolPermission } from "./mcp-tool.js";
export { mcpSecretValues } from "./secrets.js";
export { mcpToolName, mcpToolPrefix, ToolNamer } from "./tool-names.js";
export { type McpConnectOutcome, McpToolset, type McpToolsetOptions } from "./toolset.js";
