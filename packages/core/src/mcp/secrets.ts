import type { McpServer, McpServerInput } from "@penguin/state";
import { MCP_SECRET_MIN_LENGTH } from "./limits.js";

/**
 * "MCP env/headers values count as secrets for redaction": the values of every server's `env`
 * and `headers`, and the credential of a `<scheme> <credential>` header value (so a token that a
 * server echoes without its "Bearer " is caught too). Too-short values are left out.
 */
export function mcpSecretValues(servers: readonly (McpServer | McpServerInput)[]): string[] {
  const values = new Set<string>();
  const add = (value: string) => {
    if (value.trim().length >= MCP_SECRET_MIN_LENGTH) values.add(value);
  };
  for (const { config } of servers) {
    const entries = config.transport === "stdio" ? config.env : config.headers;
    for (const value of Object.values(entries ?? {})) {
      add(value);
      const credential = /^\S+\s+(\S+)$/.exec(value.trim())?.[1];
      if (credential) add(credential);
    }
  }
  return [...values];
}
