import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult, ServerCapabilities, Tool } from "@modelcontextprotocol/sdk/types.js";
import { errorMessage } from "@penguin/protocol";
import type { McpServer } from "@penguin/state";
import type { CallOptions, McpCallOutcome } from "./call-outcome.js";
import { lossDetail } from "./connection-watch.js";
import { describeError, oneLine } from "./error-text.js";
import {
  MCP_CLIENT_INFO,
  MCP_CLOSE_WAIT_MS,
  MCP_SDK_REQUEST_TIMEOUT_MS,
  MCP_STDERR_TAIL_CHARS,
} from "./limits.js";
import { ProgressRoutes } from "./progress.js";
import { readResourceLinks } from "./resource-links.js";
import type { RenderedContents } from "./resources.js";
import { loadMcpSdk, type McpSdk } from "./sdk.js";
import { expiredSessionAnswer, isSessionExpired } from "./session-expiry.js";
import { callToolAsTask, requiresTask } from "./task-call.js";
import { killQuietly, openTransport } from "./transport.js";

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

type Ready = { status: "ready"; client: Client } | Exclude<McpCallOutcome, { status: "answered" }>;
type Sent = McpCallOutcome | { status: "session-expired"; reason: string };

/**
 * The client side of one MCP server for one session: the official SDK's `Client` over stdio,
 * streamable HTTP or SSE. It remembers when a stdio server stopped, so later calls fail fast with
 * the reason instead of waiting on a dead pipe. A remote server's lost connection ends the calls
 * under way at once, and the next call connects again (the server may have restarted).
 */
export class McpConnection {
  private client: Client | undefined;
  private stderrTail = "";
  private closing = false;
  /** Ends a reconnect still running when the session closes the connection. */
  private readonly lifetime = new AbortController();
  /** Set when a stdio server's connection closed without Penguin closing it (it crashed). */
  private stopped: "before-ready" | "while-connected" | undefined;
  /**
   * Set when a remote server's connection broke: which client it was, why, and whether a request
   * may have reached the server (false: it could not even be connected to).
   */
  private lost: { client: Client; reason: string; delivered: boolean } | undefined;
  private connecting: Promise<Tool[]> | undefined;
  private reconnecting: Promise<Ready> | undefined;
  /** Progress tokens of the calls running now. */
  private readonly progress = new ProgressRoutes();
  /** The tools that can only be called as tasks (`execution.taskSupport: "required"`). */
  private taskRequired = new Set<string>();
  /** Settles when the transport has closed (a stdio server's process has ended). */
  private ended: Promise<void> = Promise.resolve();

  constructor(
    readonly name: string,
    readonly config: McpServerConfig,
    private readonly workspaceDir: string,
  ) {}

  /** What the server said it supports in the handshake (undefined until connected). */
  get serverCapabilities(): ServerCapabilities | undefined {
    return this.client?.getServerCapabilities();
  }

  private get remote(): boolean {
    return this.config.transport !== "stdio";
  }

  /**
   * Why the server's tools cannot be called now (undefined while it is connected, and while a
   * remote server's lost connection may still be made again by the next call).
   */
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
    try {
      const { client, tools } = await this.handshake(sdk, signal, true);
      this.client = client;
      this.taskRequired = new Set(tools.filter(requiresTask).map((tool) => tool.name));
      return tools;
    } catch (error) {
      // A server that failed to connect is skipped for the session.
      this.closing = true;
      throw error;
    }
  }

  /**
   * One client, connected: the transport opened, `initialize` answered and (when `listTools`)
   * every tool listed, within `connectTimeoutMs`. On failure what was started is closed again.
   */
  private async handshake(
    sdk: McpSdk,
    signal: AbortSignal,
    listTools: boolean,
  ): Promise<{ client: Client; tools: Tool[] }> {
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
    /** Set once a failed handshake closes this client: its close says nothing about the server. */
    let discarded = false;
    let markEnded!: () => void;
    this.ended = new Promise<void>((resolve) => {
      markEnded = resolve;
    });
    // Errors of a live connection surface as failed calls; nothing to report on their own.
    client.onerror = () => {};
    // Set on every client, so a reconnected one routes progress too.
    client.setNotificationHandler(sdk.ProgressNotificationSchema, (notification) =>
      this.progress.deliver(notification.params),
    );
    client.onclose = () => {
      markEnded();
      if (this.closing || discarded) return;
      this.clientClosed(client);
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
      const opened = this.transport(sdk, client);
      transport = opened;
      const work = (async () => {
        await client.connect(opened, { signal: controller.signal, timeout: MCP_SDK_REQUEST_TIMEOUT_MS });
        return listTools ? listAllTools(client, controller.signal) : [];
      })();
      // The SDK cannot cancel a spawn or a fetch that hangs: the race ends the wait, close() the rest.
      work.catch(() => {});
      const tools = await Promise.race([work, stopped]);
      // Closed while the handshake ran (the session was disposed): nothing may outlive it.
      if (this.closing) throw new McpConnectError("aborted", "the session was closed");
      return { client, tools };
    } catch (error) {
      // A stdio server that exited says more through its exit and stderr than "Connection closed";
      // any other failure (no such program, refused, bad answer) says it best itself.
      const exited =
        this.stopped !== undefined && isConnectionClosed(sdk, error) && this.config.transport === "stdio";
      const reason = exited ? this.stopReason() : this.connectFailure(error);
      discarded = true;
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

  /** A client's connection closed without Penguin closing it. */
  private clientClosed(client: Client): void {
    if (!this.remote) {
      this.stopped = this.client === client ? "while-connected" : "before-ready";
      return;
    }
    if (this.client === client) this.lost ??= { client, reason: "its connection closed", delivered: true };
  }

  /**
   * The network under a remote server's connection failed (a request could not reach it, or an
   * answer broke off): every call under way fails now, instead of at its timeout, and the next
   * call connects again.
   */
  private connectionLost(client: Client, error: unknown, delivered: boolean): void {
    if (this.closing || this.client !== client || this.lost !== undefined) return;
    const detail = oneLine(lossDetail(error));
    this.lost = delivered
      ? { client, reason: `its connection was lost: ${detail}`, delivered }
      : { client, reason: `it cannot be connected to (${detail})`, delivered };
    // Closing rejects every pending request at once and stops the SDK's attempts to resume.
    void client.close().catch(() => {});
  }

  /**
   * Calls one tool; the signal (the Environment's timeout and the user's interrupt) ends it. A
   * remote server that forgot the session (it restarted) is initialized again, once, and a
   * read-only call is then sent again.
   */
  async callTool(name: string, args: Record<string, unknown>, options: CallOptions): Promise<McpCallOutcome> {
    const { signal } = options;
    const route = options.onProgress ? this.progress.open(options.onProgress) : undefined;
    try {
      const ready = await this.ready(signal);
      if (ready.status !== "ready") return ready;
      const first = await this.send(ready.client, name, args, signal, route?.token);
      if (first.status !== "session-expired") return first;
      const again = await this.reconnect(signal);
      if (again.status !== "ready") return again;
      if (!options.readOnly) return { status: "not-repeated", reason: first.reason };
      const second = await this.send(again.client, name, args, signal, route?.token);
      return second.status === "session-expired" ? { status: "error", reason: second.reason } : second;
    } finally {
      route?.close();
    }
  }

  /** The client to send a call with: the current one, or (remote, after a loss) a new one. */
  private async ready(signal: AbortSignal | undefined): Promise<Ready> {
    if (this.closing) return { status: "unavailable", reason: "the session closed its connection" };
    if (this.stopped !== undefined) return { status: "unavailable", reason: this.stopReason() };
    if (!this.client) return { status: "unavailable", reason: "it is not connected" };
    if (this.remote && this.lost !== undefined) return this.reconnect(signal);
    return { status: "ready", client: this.client };
  }

  private async send(
    client: Client,
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal | undefined,
    progressToken: string | undefined,
  ): Promise<Sent> {
    const params = {
      name,
      arguments: args,
      ...(progressToken !== undefined ? { _meta: { progressToken } } : {}),
    };
    const options = { signal, timeout: MCP_SDK_REQUEST_TIMEOUT_MS };
    try {
      const result = this.taskRequired.has(name)
        ? await callToolAsTask(client, params, options)
        : await client.callTool(params, undefined, options);
      // A server of the 2024-10-07 protocol answers `{toolResult}`: shown as JSON text.
      if (!("content" in result) && "toolResult" in result) {
        return {
          status: "answered",
          result: { content: [{ type: "text", text: JSON.stringify(result.toolResult) }] },
        };
      }
      return { status: "answered", result: result as CallToolResult };
    } catch (error) {
      if (signal?.aborted) return { status: "interrupted" };
      if (this.stopped !== undefined) return { status: "stopped", reason: this.stopReason(), final: true };
      const lost = this.lost;
      if (lost?.client === client) {
        // Refused before anything was sent: the server is down, the call never reached it.
        if (!lost.delivered) return { status: "unreachable", reason: lost.reason };
        return { status: "stopped", reason: `the server stopped (${lost.reason})`, final: false };
      }
      if (this.remote && error instanceof Error && isSessionExpired(error)) {
        return { status: "session-expired", reason: expiredSessionAnswer(error) };
      }
      return { status: "error", reason: describeError(error) };
    }
  }

  /** A new client for a remote server (its connection was lost, or it forgot the session). */
  private async reconnect(signal: AbortSignal | undefined): Promise<Ready> {
    this.reconnecting ??= this.handshakeAgain().finally(() => {
      this.reconnecting = undefined;
    });
    const reconnecting = this.reconnecting;
    if (!signal) return reconnecting;
    // The caller may stop waiting; the handshake goes on for the calls after it.
    return new Promise<Ready>((resolve) => {
      const onAbort = () => resolve({ status: "interrupted" });
      if (signal.aborted) onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      void reconnecting.then((ready) => {
        signal.removeEventListener("abort", onAbort);
        resolve(ready);
      });
    });
  }

  private async handshakeAgain(): Promise<Ready> {
    const previous = this.client;
    try {
      const { client } = await this.handshake(await loadMcpSdk(), this.lifetime.signal, false);
      this.client = client;
      this.lost = undefined;
      // The old client may still hold the server's stream of the forgotten session.
      void previous?.close().catch(() => {});
      return { status: "ready", client };
    } catch (error) {
      if (this.closing) return { status: "unavailable", reason: "the session closed its connection" };
      return { status: "unreachable", reason: errorMessage(error) };
    }
  }

  /** Closes the connection; a stdio server's process ends (stdin closed, then SIGTERM, then SIGKILL). */
  async close(): Promise<void> {
    this.closing = true;
    this.lifetime.abort(new Error("the session closed its connection"));
    // A connect still running closes what it started (the session's abort ends it quickly).
    await this.connecting?.catch(() => {});
    await this.reconnecting;
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

  private transport(sdk: McpSdk, client: Client): Transport {
    return openTransport(sdk, this.config, this.workspaceDir, {
      stderr: (text) => {
        this.stderrTail = (this.stderrTail + text).slice(-MCP_STDERR_TAIL_CHARS);
      },
      lost: (error, delivered) => this.connectionLost(client, error, delivered),
    });
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

  /**
   * The SDK client for a request that is not a tool call (resources): a remote server whose
   * connection was lost is connected again first, as for a call; else throws with the reason.
   */
  async requestClient(signal?: AbortSignal): Promise<Client> {
    const ready = await this.ready(signal);
    if (ready.status === "ready") return ready.client;
    throw new Error("reason" in ready ? ready.reason : "the request was interrupted");
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
