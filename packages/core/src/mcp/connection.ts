import { isAbsolute, resolve } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { McpServer } from "@penguin/state";
import {
  MCP_CLIENT_INFO,
  MCP_CLOSE_WAIT_MS,
  MCP_REASON_MAX_CHARS,
  MCP_SDK_REQUEST_TIMEOUT_MS,
  MCP_STDERR_TAIL_CHARS,
} from "./limits.js";
import { readResourceLinks } from "./resource-links.js";
import type { RenderedContents } from "./resources.js";
import { loadMcpSdk, type McpSdk } from "./sdk.js";

export type McpServerConfig = McpServer["config"];

/** How connecting ended when it did not: the `status` of the server's connect result. */
export class McpConnectError extends Error {
  constructor(
    readonly status: "failed" | "timeout" | "aborted",
    message: string,
  ) {
    super(message);
    this.name = "McpConnectError";
  }
}

/** One line, bounded: reasons go into events, warnings and tool outputs. */
export function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > MCP_REASON_MAX_CHARS ? `${flat.slice(0, MCP_REASON_MAX_CHARS - 1)}…` : flat;
}

/** An error as a reader can act on it (the SDK and fetch hide the useful part in `code`/`cause`). */
export function describeError(error: unknown, config?: McpServerConfig): string {
  if (!(error instanceof Error)) return oneLine(String(error));
  const code = (error as NodeJS.ErrnoException).code;
  if (config?.transport === "stdio" && code === "ENOENT") {
    return `cannot start "${config.command}": no such program (ENOENT)`;
  }
  if (config?.transport === "stdio" && code === "EACCES") {
    return `cannot start "${config.command}": permission denied (EACCES)`;
  }
  const cause = (error as { cause?: unknown }).cause;
  const detail =
    cause instanceof Error
      ? ((cause as NodeJS.ErrnoException).code ?? cause.message)
      : typeof cause === "string"
        ? cause
        : undefined;
  const message = error.message || error.name;
  return oneLine(detail && !message.includes(detail) ? `${message} (${detail})` : message);
}

/**
 * The client side of one MCP server for one session: the official SDK's `Client` over stdio,
 * streamable HTTP or SSE. It remembers when the server stopped, so later calls fail fast with the
 * reason instead of waiting on a dead connection.
 */
export class McpConnection {
  private client: Client | undefined;
  private stderrTail = "";
  private closing = false;
  /** Set when the connection closed without Penguin closing it (the server crashed or hung up). */
  private stopped: "before-ready" | "while-connected" | undefined;
  private connecting: Promise<Tool[]> | undefined;
  /** Settles when the transport has closed (a stdio server's process has ended). */
  private ended: Promise<void> = Promise.resolve();

  constructor(
    readonly name: string,
    readonly config: McpServerConfig,
    private readonly workspaceDir: string,
  ) {}

  /** Why the server's tools cannot be called now (undefined while it is connected). */
  get unavailableReason(): string | undefined {
    // Built when asked: the server's last stderr lines may arrive just after the close.
    if (this.stopped !== undefined) return this.stopReason();
    if (this.closing) return "the session closed its connection";
    if (!this.client) return "it is not connected";
    return undefined;
  }

  /**
   * Starts the server (stdio) or opens the connection (http/sse), runs the MCP handshake and
   * lists every tool, all within `connectTimeoutMs`. On failure everything started is closed
   * again and an McpConnectError says why.
   */
  connect(signal: AbortSignal): Promise<Tool[]> {
    const connecting = this.open(signal);
    this.connecting = connecting;
    return connecting;
  }

  private async open(signal: AbortSignal): Promise<Tool[]> {
    let sdk: McpSdk;
    try {
      sdk = await loadMcpSdk();
    } catch (error) {
      this.closing = true;
      throw new McpConnectError(
        "failed",
        `cannot load the MCP SDK (${describeError(error)}); reinstall Penguin to restore it`,
      );
    }
    // Closed while the SDK loaded: nothing has started yet.
    if (this.closing) throw new McpConnectError("aborted", "the session was closed");
    const timeoutMs = this.config.connectTimeoutMs;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const onAbort = () => controller.abort(new Error("the task was interrupted"));
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });

    const client = new sdk.Client(MCP_CLIENT_INFO, { capabilities: {} });
    let markEnded!: () => void;
    this.ended = new Promise<void>((resolve) => {
      markEnded = resolve;
    });
    // Errors of a live connection surface as failed calls; nothing to report on their own.
    client.onerror = () => {};
    client.onclose = () => {
      markEnded();
      if (this.closing) return;
      this.stopped = this.client === client ? "while-connected" : "before-ready";
    };
    let transport: Transport | undefined;
    const stopped = new Promise<never>((_, reject) => {
      controller.signal.addEventListener(
        "abort",
        () => {
          // A server that does not answer gets no grace: its process is ended now. (The SDK's own
          // close would first wait for it to leave on its own.)
          const pid = transport instanceof sdk.StdioClientTransport ? transport.pid : null;
          if (pid) killQuietly(pid);
          reject(controller.signal.reason);
        },
        { once: true },
      );
    });
    try {
      if (controller.signal.aborted) throw controller.signal.reason;
      const opened = this.transport(sdk);
      transport = opened;
      const work = (async () => {
        await client.connect(opened, { signal: controller.signal, timeout: MCP_SDK_REQUEST_TIMEOUT_MS });
        return listAllTools(client, controller.signal);
      })();
      // The SDK cannot cancel a spawn or a fetch that hangs: the race ends the wait, close() the rest.
      work.catch(() => {});
      const tools = await Promise.race([work, stopped]);
      // Closed while the handshake ran (the session was disposed): nothing may outlive it.
      if (this.closing) throw new McpConnectError("aborted", "the session was closed");
      this.client = client;
      return tools;
    } catch (error) {
      // A stdio server that exited says more through its exit and stderr than "Connection closed";
      // any other failure (no such program, refused, bad answer) says it best itself.
      const exited =
        this.stopped !== undefined && isConnectionClosed(sdk, error) && this.config.transport === "stdio";
      const reason = exited ? this.stopReason() : this.connectFailure(error);
      this.closing = true;
      if (transport) void client.close().catch(() => {});
      else markEnded();
      if (error instanceof McpConnectError) throw error;
      if (signal.aborted && !timedOut) throw new McpConnectError("aborted", "the task was interrupted");
      if (timedOut)
        throw new McpConnectError("timeout", `no answer within ${timeoutMs} ms${this.stderrNote()}`);
      throw new McpConnectError("failed", reason);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    }
  }

  /** Calls one tool; the signal (the Environment's timeout and the user's interrupt) ends it. */
  async callTool(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallToolResult> {
    const client = this.client;
    const unavailable = this.unavailableReason;
    if (!client || unavailable !== undefined) throw new Error(unavailable ?? "it is not connected");
    const result = await client.callTool({ name, arguments: args }, undefined, {
      signal,
      timeout: MCP_SDK_REQUEST_TIMEOUT_MS,
    });
    // A server of the 2024-10-07 protocol answers `{toolResult}`: shown as JSON text.
    if (!("content" in result) && "toolResult" in result) {
      return { content: [{ type: "text", text: JSON.stringify(result.toolResult) }] };
    }
    return result as CallToolResult;
  }

  /** Closes the connection; a stdio server's process ends (stdin closed, then SIGTERM, then SIGKILL). */
  async close(): Promise<void> {
    this.closing = true;
    // A connect still running closes what it started (the session's abort ends it quickly).
    await this.connecting?.catch(() => {});
    const client = this.client;
    this.client = undefined;
    await client?.close().catch(() => {});
    // Bounded: the SDK sends SIGTERM, then SIGKILL, to a stdio server that does not leave.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.ended,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, MCP_CLOSE_WAIT_MS);
      }),
    ]);
    clearTimeout(timer);
  }

  private transport(sdk: McpSdk): Transport {
    const config = this.config;
    if (config.transport === "stdio") {
      const transport = new sdk.StdioClientTransport({
        command: config.command,
        args: config.args,
        // Only the SDK's short list of safe variables (PATH, HOME …) plus the server's own `env`:
        // API keys and other secrets of Penguin's environment never reach the server.
        env: { ...sdk.getDefaultEnvironment(), ...(config.env ?? {}) },
        cwd: config.cwd === undefined ? this.workspaceDir : resolveIn(this.workspaceDir, config.cwd),
        // Kept, not printed over the user's terminal: its tail explains a failure.
        stderr: "pipe",
      });
      transport.stderr?.on("data", (chunk: Buffer) => {
        this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-MCP_STDERR_TAIL_CHARS);
      });
      return transport;
    }
    const url = new URL(config.url);
    const requestInit = config.headers ? { headers: config.headers } : undefined;
    return config.transport === "http"
      ? new sdk.StreamableHTTPClientTransport(url, { requestInit })
      : new sdk.SSEClientTransport(url, { requestInit });
  }

  private connectFailure(error: unknown): string {
    return `${describeError(error, this.config)}${this.stderrNote()}`;
  }

  private stopReason(): string {
    const what = this.config.transport === "stdio" ? "its process exited" : "its connection closed";
    const when = this.stopped === "before-ready" ? " before the MCP handshake finished" : "";
    return `the server stopped (${what}${when})${this.stderrNote()}`;
  }

  /** The last line the server wrote to stderr, as a hint. */
  private stderrNote(): string {
    const lines = this.stderrTail
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "");
    const last = lines.at(-1);
    return last ? `; its stderr ends with: ${oneLine(last)}` : "";
  }

  /** Whether the connected server offers resources (its `resources` capability). */
  get hasResources(): boolean {
    return this.client?.getServerCapabilities()?.resources !== undefined;
  }

  /** The SDK client of a server that can take requests now; else throws with the reason. */
  liveClient(): Client {
    const client = this.client;
    const unavailable = this.unavailableReason;
    if (!client || unavailable !== undefined) throw new Error(unavailable ?? "it is not connected");
    return client;
  }

  /**
   * "resolve resource links in results": the content of a result's first resource links, read
   * from this server (only when it offers resources); undefined when there is nothing to add.
   */
  async readResourceLinks(
    result: CallToolResult,
    modelHasVision: boolean,
    signal?: AbortSignal,
  ): Promise<RenderedContents | undefined> {
    const client = this.client;
    if (!client || !this.hasResources || this.unavailableReason !== undefined) return undefined;
    return readResourceLinks(result, { server: this.name, client, modelHasVision, signal });
  }
}

/** The SDK's error for a connection that closed under a pending request. */
function isConnectionClosed(sdk: McpSdk, error: unknown): boolean {
  return error instanceof sdk.McpError && error.code === sdk.ErrorCode.ConnectionClosed;
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    // Already gone.
  }
}

function resolveIn(base: string, path: string): string {
  return isAbsolute(path) ? path : resolve(base, path);
}

/** `tools/list`, page after page. */
async function listAllTools(client: Client, signal: AbortSignal): Promise<Tool[]> {
  if (!client.getServerCapabilities()?.tools) return [];
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined, {
      signal,
      timeout: MCP_SDK_REQUEST_TIMEOUT_MS,
    });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}
