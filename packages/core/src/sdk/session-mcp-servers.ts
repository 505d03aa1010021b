import { type McpServer, type McpServerInput, systemConfigSchemas } from "@penguin/state";
import { SetupError } from "./setup-error.js";

// A session may bring MCP servers of its own (an editor passes its servers with each ACP
// session): they join the agent's configured servers for that session only, are started the same
// way and their tools named the same way (`mcp__<server>__<tool>`). A subagent gets only its own
// agent's configured servers: the extra ones are never handed down.

/** One line per problem of a definition: where in it (`config.url`) and what is wrong. */
function problemsOf(issues: readonly { path: PropertyKey[]; message: string }[]): string {
  return issues
    .map((issue) => {
      const where = issue.path.map(String).join(".");
      return where ? `${where}: ${issue.message}` : issue.message;
    })
    .join("; ");
}

/**
 * The session's MCP servers: the agent's configured ones, then `extra` checked (each a valid
 * definition, its name unused by a configured server or an earlier extra one). A problem is a
 * SetupError naming the server, so nothing starts and the front end can say what to fix.
 */
export function sessionMcpServers(
  configured: readonly McpServer[],
  extra: readonly McpServerInput[] | undefined,
): McpServer[] {
  const servers = [...configured];
  if (!extra || extra.length === 0) return servers;
  const configuredNames = new Set(configured.map((server) => server.name));
  const extraNames = new Set<string>();
  for (const [index, definition] of extra.entries()) {
    const parsed = systemConfigSchemas().McpServerSchema.safeParse(definition);
    const label = typeof definition?.name === "string" ? `"${definition.name}"` : `#${index + 1}`;
    if (!parsed.success) {
      throw new SetupError(
        `session MCP server ${label} is invalid: ${problemsOf(parsed.error.issues)}`,
        "mcp_servers",
      );
    }
    const { name } = parsed.data;
    if (configuredNames.has(name)) {
      throw new SetupError(
        `session MCP server "${name}" has the name of an MCP server the agent configures: give it another name`,
        "mcp_servers",
      );
    }
    if (extraNames.has(name)) {
      throw new SetupError(
        `session MCP server "${name}" is given twice: server names must be unique`,
        "mcp_servers",
      );
    }
    extraNames.add(name);
    servers.push(parsed.data);
  }
  return servers;
}
