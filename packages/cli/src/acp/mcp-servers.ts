import type { McpServer as AcpMcpServer } from "@agentclientprotocol/sdk";
import type { McpServerInput } from "@penguin/state";

// The editor's MCP servers (`mcpServers` of session/new and session/load) as Penguin's session
// MCP servers: core starts them beside the agent's own and checks them (a clashing name, an
// invalid URL), so this module only translates. A stdio server's command is started without a
// shell, with its args as given: nothing of the editor's is interpreted as a shell string.

/** "server names are 1-64 letters, digits, '_' or '-'", as Penguin's tool names need them. */
const SERVER_NAME_MAX_LENGTH = 64;
const NOT_IN_A_NAME = /[^A-Za-z0-9_-]/g;
/** The name of a server whose name has no usable character at all. */
const FALLBACK_NAME = "server";

/** An editor's server name in Penguin's characters: "My Docs" is "My_Docs". */
export function cleanServerName(name: string): string {
  const cleaned = name.replace(NOT_IN_A_NAME, "_").slice(0, SERVER_NAME_MAX_LENGTH);
  return /[A-Za-z0-9]/.test(cleaned) ? cleaned : FALLBACK_NAME;
}

/** A name not yet taken: `name`, else `name_2`, `name_3` … (still at most 64 characters). */
function uniqueName(name: string, taken: Set<string>): string {
  let candidate = name;
  for (let n = 2; taken.has(candidate); n++) {
    const suffix = `_${n}`;
    candidate = `${name.slice(0, SERVER_NAME_MAX_LENGTH - suffix.length)}${suffix}`;
  }
  taken.add(candidate);
  return candidate;
}

/** A list of `{name, value}` pairs (env variables, headers) as a record; a later pair wins. */
function recordOf(pairs: readonly { name: string; value: string }[]): Record<string, string> | undefined {
  if (pairs.length === 0) return undefined;
  return Object.fromEntries(pairs.map(({ name, value }) => [name, value]));
}

/**
 * The editor's servers as Penguin's: stdio (command, args, env list), http and sse (url,
 * headers). Names are cleaned, and two that clean to the same name are told apart.
 */
export function sessionMcpServers(servers: readonly AcpMcpServer[] | undefined): McpServerInput[] {
  const taken = new Set<string>();
  return (servers ?? []).map((server) => {
    const name = uniqueName(cleanServerName(server.name), taken);
    if ("type" in server && (server.type === "http" || server.type === "sse")) {
      const headers = recordOf(server.headers);
      return { name, config: { transport: server.type, url: server.url, ...(headers ? { headers } : {}) } };
    }
    const stdio = server as Extract<AcpMcpServer, { command: string }>;
    const env = recordOf(stdio.env);
    return {
      name,
      config: { transport: "stdio", command: stdio.command, args: [...stdio.args], ...(env ? { env } : {}) },
    };
  });
}
