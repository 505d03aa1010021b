import { performance } from "node:perf_hooks";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { McpConnectEndPayload, McpServerConnectResult, ToolSpec } from "@penguin/protocol";
import type { McpServer, McpToolBudget } from "@penguin/state";
import type { BuiltinTool } from "../environment/types.js";
import { type ConfiguredNames, checkConfiguredNames } from "./configured-names.js";
import { McpConnectError, McpConnection } from "./connection.js";
import { oneLine } from "./error-text.js";
import { LOAD_MCP_TOOLS_TOOL, READ_MCP_RESOURCE_TOOL } from "./limits.js";
import { createMcpTool, createUnavailableTool } from "./mcp-tool.js";
import { taskSupportProblem } from "./task-call.js";
import { toolBudgetWarnings } from "./tool-budget.js";
import { mcpToolPrefix, ToolNamer } from "./tool-names.js";
import { catalogTools, type McpCatalogSetup } from "./toolset-extras.js";

export interface McpToolsetOptions {
  servers: readonly McpServer[];
  /** The session's workspace: a stdio server's working folder unless its `cwd` says otherwise. */
  workspaceDir: string;
  /** Names the session's other tools have (built-ins, custom tools). */
  reservedNames: readonly string[];
  /**
   * The tool list the trace recorded last (a resumed session): the tools of a server that cannot
   * be reached this time keep their names and places, and fail at once when called.
   */
  recordedTools?: readonly ToolSpec[];
  /** `tools.mcpToolBudget`: tool-list warnings and deferred loading (absent: never deferred). */
  budget?: McpToolBudget;
  /** The session's whole tool list (the Environment's), for the list `load_mcp_tools` records. */
  toolList?: () => ToolSpec[];
  /** `allowed_tools` of the agent, when it has one. */
  allowedTools?: readonly string[];
  /** Secret values out of every reason shown in events and warnings. */
  redact?: (text: string) => string;
  /** One line for the operator per server skipped (default: stderr). */
  warn?: (line: string) => void;
  /** The tool names the configuration gives, checked against the servers' tools once connected. */
  configuredNames?: () => ConfiguredNames;
}

export interface McpConnectOutcome {
  status: McpConnectEndPayload["status"];
  results: McpServerConnectResult[];
  /** The tools to offer, servers in config order, each server's tools in its own order. */
  tools: BuiltinTool[];
}

type Attempt =
  | { ok: true; connection: McpConnection; tools: Tool[]; ms: number }
  | { ok: false; connection: McpConnection; error: McpConnectError; ms: number };

/**
 * The MCP servers of one session ("connect lazily and in parallel without blocking session
 * creation"): nothing starts until `connect`, which the session calls before the first model
 * request of its first task. A server that fails is skipped with a one-line warning and the
 * session works without it; an interrupted connect is undone and tried again by the next task.
 */
export class McpToolset {
  private connections: McpConnection[] = [];
  private state: "idle" | "connected" | "closed" = "idle";
  /** Deferred loading and `read_mcp_resource`, set up when the servers connect. */
  private extras: McpCatalogSetup | undefined;
  /** The list `keepUpToDate` was given. */
  private offeredList: ToolSpec[] | undefined;
  /** Warnings not yet handed to the session (`takeWarnings`). */
  private readonly unreported: string[] = [];

  constructor(private readonly options: McpToolsetOptions) {}

  /** The servers' names, in config order. */
  get serverNames(): string[] {
    return this.options.servers.map((server) => server.name);
  }

  /** True until the servers have been connected once (and while the session is open). */
  get pending(): boolean {
    return this.state === "idle" && this.options.servers.length > 0;
  }

  /** Whether `name` is one of this toolset's servers' tool names (`mcp__<server>__…`). */
  ownsToolName(name: string): boolean {
    if (this.options.servers.some((server) => name.startsWith(mcpToolPrefix(server.name)))) return true;
    return name === READ_MCP_RESOURCE_TOOL || name === LOAD_MCP_TOOLS_TOOL;
  }

  /** The tool list the model is offered: `specs` without deferred MCP tools not loaded yet. */
  offered(specs: readonly ToolSpec[]): ToolSpec[] {
    return this.extras?.catalog ? this.extras.catalog.offered(specs) : [...specs];
  }

  /**
   * The session's tool list, as the model is offered it: a `load_mcp_tools` call replaces its
   * contents (in place) with the longer list it records.
   */
  keepUpToDate(offered: ToolSpec[]): void {
    this.offeredList = offered;
  }

  /** Warns (once per limit) when the offered tool list is past `tools.mcpToolBudget`. */
  checkToolList(offered: readonly ToolSpec[]): void {
    if (!this.options.budget) return;
    const deferred = this.extras?.catalog !== undefined;
    for (const line of toolBudgetWarnings(offered, this.options.budget, deferred)) this.warn(line);
  }

  /** Connects every server at once, each within its `connectTimeoutMs`. */
  async connect(signal: AbortSignal): Promise<McpConnectOutcome> {
    const { servers, workspaceDir } = this.options;
    const connections = servers.map((server) => new McpConnection(server.name, server.config, workspaceDir));
    this.connections = connections;
    const attempts = await Promise.all(connections.map((connection) => attempt(connection, signal)));
    if (signal.aborted || this.state === "closed") {
      await Promise.all(connections.map((connection) => connection.close()));
      if (this.state !== "closed") this.connections = [];
      return { status: "aborted", results: attempts.map((a) => this.result(a, true)), tools: [] };
    }
    this.state = "connected";
    const results = attempts.map((a) => this.result(a, false));
    for (const [index, a] of attempts.entries()) {
      if (!a.ok) this.warn(`MCP server "${servers[index].name}" skipped: ${results[index].error}`);
    }
    const tools = this.toolsOf(attempts, results);
    this.checkConfiguredNames(results);
    const status = attempts.every((a) => a.ok) ? "completed" : "failed";
    return { status, results, tools: [...tools, ...this.setUpExtras(attempts, tools)] };
  }

  /** `read_mcp_resource` and, past the threshold, `load_mcp_tools` with the catalog. */
  private setUpExtras(attempts: Attempt[], mcpTools: BuiltinTool[]): BuiltinTool[] {
    this.extras = catalogTools({
      mcpTools,
      connected: attempts.flatMap((a) => (a.ok ? [a.connection] : [])),
      budget: this.options.budget,
      reservedNames: this.options.reservedNames,
      allowedTools: this.options.allowedTools,
      recordedTools: this.options.recordedTools,
      toolList: this.options.toolList,
      onLoaded: (offered) => this.offeredList?.splice(0, this.offeredList.length, ...offered),
      warn: (line) => this.warn(line),
    });
    return this.extras.tools;
  }

  /** Closes every server connection; stdio servers' processes end. */
  async close(): Promise<void> {
    this.state = "closed";
    await this.closeAll();
  }

  private async closeAll(): Promise<void> {
    const connections = this.connections;
    this.connections = [];
    await Promise.all(connections.map((connection) => connection.close()));
  }

  private redact(text: string): string {
    return this.options.redact ? this.options.redact(text) : text;
  }

  /** The warnings since the last call, for the session to trace and stream as `warning` events. */
  takeWarnings(): string[] {
    return this.unreported.splice(0);
  }

  private warn(line: string): void {
    this.unreported.push(line);
    if (this.options.warn) this.options.warn(line);
    else process.stderr.write(`${line}\n`);
  }

  private result(a: Attempt, aborted: boolean): McpServerConnectResult {
    const base = {
      server: a.connection.name,
      transport: a.connection.config.transport,
      duration_ms: Math.max(0, Math.round(a.ms)),
    };
    if (aborted && (a.ok || a.error.status === "aborted")) {
      return { ...base, status: "aborted", error: "the task was interrupted while connecting" };
    }
    if (!a.ok) return { ...base, status: a.error.status, error: this.redact(oneLine(a.error.message)) };
    return { ...base, status: "completed", tools: [] };
  }

  /**
   * Names in `allowed_tools` and hooks' `tools` that a connected server does not have: one
   * warning each, for the operator (stderr) and as a `warning` event (trace and stream).
   */
  private checkConfiguredNames(results: McpServerConnectResult[]): void {
    const configured = this.options.configuredNames?.();
    if (!configured) return;
    const connected = results.flatMap((result) =>
      result.status === "completed"
        ? [{ server: result.server, prefix: mcpToolPrefix(result.server), tools: result.tools ?? [] }]
        : [],
    );
    const warnings = checkConfiguredNames(configured, connected);
    for (const result of results) {
      const lines = warnings.get(result.server);
      if (!lines) continue;
      for (const line of lines) this.warn(`MCP server "${result.server}": ${line}`);
    }
  }

  /** The tools of every server, named; fills each connected server's `tools` in `results`. */
  private toolsOf(attempts: Attempt[], results: McpServerConnectResult[]): BuiltinTool[] {
    const namer = new ToolNamer(this.options.reservedNames);
    const recordedByServer = this.recordedByServer();
    const tools: BuiltinTool[] = [];
    for (const [index, a] of attempts.entries()) {
      const server = a.connection.name;
      if (!a.ok) {
        // Kept in place from the last recorded list, so the prompt prefix does not change.
        const reason = () => this.redact(a.error.message);
        for (const spec of recordedByServer.get(server) ?? []) {
          if (namer.claim(spec.name)) tools.push(createUnavailableTool(spec, server, reason));
        }
        continue;
      }
      const names: string[] = [];
      for (const tool of a.tools) {
        const problem = taskSupportProblem(tool, a.connection.serverCapabilities);
        if (problem !== undefined) {
          this.warn(`MCP server "${server}": tool "${tool.name}" left out: ${problem}`);
          results[index].left_out = [
            ...(results[index].left_out ?? []),
            { tool: tool.name, reason: problem },
          ];
          continue;
        }
        const name = namer.nameFor(server, tool.name);
        if (name === undefined) {
          this.warn(
            `MCP server "${server}": tool "${tool.name}" left out: its name is taken by another tool`,
          );
          continue;
        }
        names.push(name);
        tools.push(createMcpTool(name, server, tool, a.connection));
      }
      results[index].tools = names;
      this.warnIfAllHidden(server, names);
    }
    return tools;
  }

  /**
   * A server whose every tool `allowed_tools` leaves out is started for nothing: said once, so an
   * editor's server that an agent's list hides does not just look broken.
   */
  private warnIfAllHidden(server: string, names: readonly string[]): void {
    const allowed = this.options.allowedTools;
    if (!allowed || names.length === 0 || names.some((name) => allowed.includes(name))) return;
    const count = names.length === 1 ? "its only tool" : `all ${names.length} of its tools`;
    this.warn(
      `MCP server "${server}": the agent's allowed_tools hides ${count}, so the model is offered none`,
    );
  }

  /** The recorded MCP tools by server (a name belongs to the server with the longest matching prefix). */
  private recordedByServer(): Map<string, ToolSpec[]> {
    const byServer = new Map<string, ToolSpec[]>();
    const prefixes = this.options.servers
      .map((server) => ({ server: server.name, prefix: mcpToolPrefix(server.name) }))
      .sort((a, b) => b.prefix.length - a.prefix.length);
    for (const spec of this.options.recordedTools ?? []) {
      const owner = prefixes.find(({ prefix }) => spec.name.startsWith(prefix));
      if (!owner) continue;
      const list = byServer.get(owner.server) ?? [];
      list.push(spec);
      byServer.set(owner.server, list);
    }
    return byServer;
  }
}

async function attempt(connection: McpConnection, signal: AbortSignal): Promise<Attempt> {
  const started = performance.now();
  try {
    const tools = await connection.connect(signal);
    return { ok: true, connection, tools, ms: performance.now() - started };
  } catch (error) {
    const failure =
      error instanceof McpConnectError ? error : new McpConnectError("failed", oneLine(String(error)));
    return { ok: false, connection, error: failure, ms: performance.now() - started };
  }
}
