import type { ActiveHook } from "../hooks/hook-set.js";

// A tool name of the configuration (`allowed_tools`, a hook's `tools`) is checked when the agent
// loads, but a connected server's tools are known only once it has connected: until then any
// `mcp__<server>__…` name is accepted. A misspelt one (`mcp__everything__ech0`) would make a hook
// silently never run, or leave a tool out of the session. So once the servers have connected,
// every such name is checked against the tools each server really has.

/** A connected server's tools as the session offers them. */
export interface ConnectedServer {
  server: string;
  /** `mcp__<server>__`. */
  prefix: string;
  tools: readonly string[];
}

/** Where configuration names tools. */
export interface ConfiguredNames {
  allowedTools?: readonly string[];
  hooks: readonly Pick<ActiveHook, "label" | "tools">[];
  /** The before-tool hooks (those that can deny a call), by label. */
  beforeHooks: ReadonlySet<string>;
}

/** The warnings of each connected server (servers without any are left out). */
export function checkConfiguredNames(
  configured: ConfiguredNames,
  servers: readonly ConnectedServer[],
): Map<string, string[]> {
  const warnings = new Map<string, string[]>();
  const add = (server: string, line: string) => warnings.set(server, [...(warnings.get(server) ?? []), line]);
  // The longest prefix wins: server "a" must not claim the tools of server "a__b".
  const byPrefix = [...servers].sort((a, b) => b.prefix.length - a.prefix.length);
  /** The server a name belongs to, when that server has no tool of that name. */
  const missingFrom = (name: string) => {
    const owner = byPrefix.find((server) => name.startsWith(server.prefix));
    return owner && !owner.tools.includes(name) ? owner : undefined;
  };

  for (const name of configured.allowedTools ?? []) {
    const server = missingFrom(name);
    if (server) add(server.server, `allowed_tools names ${unknownName(name, server)}`);
  }
  for (const hook of configured.hooks) {
    const names = hook.tools ?? [];
    const unknown = names.flatMap((name) => {
      const server = missingFrom(name);
      return server ? [{ name, server }] : [];
    });
    if (unknown.length === 0) continue;
    const canDeny = configured.beforeHooks.has(hook.label);
    if (canDeny && unknown.length === names.length) {
      // A check that never runs lets every call through: said apart from a plain misspelling.
      const list = unknown.map(({ name, server }) => unknownName(name, server)).join("; ");
      add(
        unknown[0].server.server,
        `NO TOOL MATCHES before_tool hook "${hook.label}": it will never run, so it denies nothing. Its tools: ${list}`,
      );
      continue;
    }
    for (const { name, server } of unknown) {
      add(server.server, `hook "${hook.label}" lists in its tools ${unknownName(name, server)}`);
    }
  }
  return warnings;
}

/** `"mcp__s__ech0", which the MCP server "s" does not have (closest: "mcp__s__echo")`. */
function unknownName(name: string, server: ConnectedServer): string {
  const closest = closestName(name, server.tools);
  const hint = closest === undefined ? "it has no tools" : `closest: "${closest}"`;
  return `"${name}", which the MCP server "${server.server}" does not have (${hint})`;
}

/**
 * The candidate fewest edits away from `name` (the first of equals, in the server's order); case
 * is ignored, since `GET-ENV` for `get-env` is one slip, not seven.
 */
export function closestName(name: string, candidates: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (!best || distance < best.distance) best = { name: candidate, distance };
  }
  return best?.name;
}

/** Levenshtein distance: insertions, deletions and substitutions of one character. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j] + 1, current[j - 1] + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length];
}
