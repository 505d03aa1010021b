import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import type { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { ErrorCode, McpError, ProgressNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

/**
 * The parts of the official MCP SDK a connection uses, imported when a session first connects to
 * a server: a session without `mcpServers` never loads the SDK (about 200 ms to import). "Aim for
 * start-up that a user does not notice (lazy-load what a command does not need)." The three
 * transports share most of their code, so they are loaded together (about 20 ms more than one).
 */
export interface McpSdk {
  Client: typeof Client;
  McpError: typeof McpError;
  ErrorCode: typeof ErrorCode;
  ProgressNotificationSchema: typeof ProgressNotificationSchema;
  StdioClientTransport: typeof StdioClientTransport;
  getDefaultEnvironment: typeof getDefaultEnvironment;
  StreamableHTTPClientTransport: typeof StreamableHTTPClientTransport;
  SSEClientTransport: typeof SSEClientTransport;
}

/** The SDK's client and transports; rejects when they cannot be imported (a broken install). */
export async function loadMcpSdk(): Promise<McpSdk> {
  const [client, types, stdio, http, sse] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/types.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/client/sse.js"),
  ]);
  return {
    Client: client.Client,
    McpError: types.McpError,
    ErrorCode: types.ErrorCode,
    ProgressNotificationSchema: types.ProgressNotificationSchema,
    StdioClientTransport: stdio.StdioClientTransport,
    getDefaultEnvironment: stdio.getDefaultEnvironment,
    StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
    SSEClientTransport: sse.SSEClientTransport,
  };
}
