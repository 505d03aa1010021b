import { isAbsolute, resolve } from "node:path";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpServer } from "@penguin/state";
import { watchedFetch } from "./connection-watch.js";
import type { McpSdk } from "./sdk.js";

/** What a connection hears from its transport besides MCP messages. */
export interface TransportWatch {
  /** Text a stdio server wrote to stderr. */
  stderr(text: string): void;
  /** A remote server's network failed; `delivered`: a request may have reached it. */
  lost(error: unknown, delivered: boolean): void;
}

/** The transport to one server: a started stdio process, or streamable HTTP or SSE. */
export function openTransport(
  sdk: McpSdk,
  config: McpServer["config"],
  workspaceDir: string,
  watch: TransportWatch,
): Transport {
  if (config.transport === "stdio") {
    const transport = new sdk.StdioClientTransport({
      command: config.command,
      args: config.args,
      // Only the SDK's short list of safe variables (PATH, HOME …) plus the server's own `env`:
      // API keys and other secrets of Penguin's environment never reach the server.
      env: { ...sdk.getDefaultEnvironment(), ...(config.env ?? {}) },
      cwd: config.cwd === undefined ? workspaceDir : resolveIn(workspaceDir, config.cwd),
      // Kept, not printed over the user's terminal: its tail explains a failure.
      stderr: "pipe",
    });
    transport.stderr?.on("data", (chunk: Buffer) => {
      watch.stderr(chunk.toString("utf8"));
    });
    return transport;
  }
  const url = new URL(config.url);
  const requestInit = config.headers ? { headers: config.headers } : undefined;
  const fetch = watchedFetch((error, delivered) => watch.lost(error, delivered));
  return config.transport === "http"
    ? new sdk.StreamableHTTPClientTransport(url, { requestInit, fetch })
    : new sdk.SSEClientTransport(url, { requestInit, fetch });
}

/** Ends a stdio server's process at once (one that does not answer gets no grace). */
export function killQuietly(pid: number): void {
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    // Already gone.
  }
}

function resolveIn(base: string, path: string): string {
  return isAbsolute(path) ? path : resolve(base, path);
}
