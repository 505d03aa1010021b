import { createHash } from "node:crypto";
import {
  MCP_NAME_HASH_LENGTH,
  MCP_NAME_SEPARATOR,
  MCP_TOOL_NAME_MAX_LENGTH,
  MCP_TOOL_PREFIX,
} from "./limits.js";

// "tool names `mcp__<server>__<tool>` (sanitize to the providers' allowed charset
// `^[a-zA-Z0-9_-]{1,64}$`)". A name that had to be shortened, or that two tools would share after
// sanitizing, gets a short hash of the original pair, so every name stays unique and the same
// server tool gets the same name in every session (the tool list is part of the prompt prefix).

const NOT_ALLOWED = /[^a-zA-Z0-9_-]/g;

/** The prefix of every tool name of `server`. */
export function mcpToolPrefix(server: string): string {
  return `${MCP_TOOL_PREFIX}${server.replace(NOT_ALLOWED, "_")}${MCP_NAME_SEPARATOR}`;
}

function shortHash(server: string, tool: string): string {
  return createHash("sha256").update(`${server}\u0000${tool}`).digest("hex").slice(0, MCP_NAME_HASH_LENGTH);
}

function withHash(name: string, server: string, tool: string): string {
  const suffix = `_${shortHash(server, tool)}`;
  return `${name.slice(0, MCP_TOOL_NAME_MAX_LENGTH - suffix.length)}${suffix}`;
}

/** `mcp__<server>__<tool>` in the allowed characters, at most 64 of them. */
export function mcpToolName(server: string, tool: string): string {
  const name = `${mcpToolPrefix(server)}${tool.replace(NOT_ALLOWED, "_")}`;
  const exact = name === `${MCP_TOOL_PREFIX}${server}${MCP_NAME_SEPARATOR}${tool}`;
  if (exact && name.length <= MCP_TOOL_NAME_MAX_LENGTH) return name;
  // Changed characters ("a.b" and "a_b" would meet) or too long: the hash keeps it unique.
  return withHash(name, server, tool);
}

/**
 * Hands out tool names, each once. A name already taken (a built-in, a custom tool, an earlier
 * server's tool) is not given twice: the later tool gets its hashed form, and is left out
 * (`undefined`) only if even that is taken.
 */
export class ToolNamer {
  private readonly used: Set<string>;

  constructor(taken: Iterable<string>) {
    this.used = new Set(taken);
  }

  /** The name for `tool` of `server`. */
  nameFor(server: string, tool: string): string | undefined {
    const plain = mcpToolName(server, tool);
    for (const candidate of [plain, withHash(plain, server, tool)]) {
      if (this.claim(candidate)) return candidate;
    }
    return undefined;
  }

  /** Takes `name` as it is (a recorded name); false when it is taken. */
  claim(name: string): boolean {
    if (this.used.has(name)) return false;
    this.used.add(name);
    return true;
  }
}
