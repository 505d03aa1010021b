// Tool names the Environment itself tells apart. The MCP toolset (mcp/) names its tools with this
// prefix and re-exports it; it is defined here, at the lowest folder that reads it, so that the
// Environment depends on nothing above it.

/** "tools exposed as `mcp__<server>__<tool>`". */
export const MCP_TOOL_PREFIX = "mcp__";
