import type { ToolSpec } from "@penguin/protocol";
import { type McpServer, resolveMcpToolBudget, type SystemConfig } from "@penguin/state";
import type { Environment } from "../environment/environment.js";
import { SecretRedactor } from "../environment/redact.js";
import type { BuiltinTool } from "../environment/types.js";
import type { HookSet } from "../hooks/hook-set.js";
import { McpToolset } from "../mcp/toolset.js";
import type { AgentLogger } from "./agent-options.js";
import { configuredToolNames } from "./configured-tool-names.js";

export interface SessionMcpInput {
  agentId: string;
  config: SystemConfig;
  /** The agent's servers and the session's own (see session-mcp-servers.ts). */
  servers: readonly McpServer[];
  workspaceDir: string;
  /** The session's own tools: an MCP tool never takes one of their names. */
  tools: readonly BuiltinTool[];
  environment: Environment;
  /** A resumed session's last recorded tool list. */
  recordedTools?: ToolSpec[];
  secrets: string[];
  hooks: HookSet;
  logger: AgentLogger;
}

/**
 * The session's MCP servers, or undefined when it has none. They connect when the
 * first task starts (see Session), never here: creating a session does not wait for them.
 */
export function sessionMcpToolset(input: SessionMcpInput): McpToolset | undefined {
  const { config, environment, secrets } = input;
  if (input.servers.length === 0) return undefined;
  return new McpToolset({
    servers: input.servers,
    workspaceDir: input.workspaceDir,
    reservedNames: input.tools.map((tool) => tool.name),
    budget: resolveMcpToolBudget(config.tools),
    toolList: () => environment.toolSpecs(),
    allowedTools: config.allowed_tools,
    recordedTools: input.recordedTools,
    redact: (text) => new SecretRedactor(secrets).redact(text),
    warn: (line) => input.logger.warn(`agent ${input.agentId}: ${line}`),
    configuredNames: () => configuredToolNames(config.allowed_tools, input.hooks),
  });
}
