import type { ToolSpec } from "@penguin/protocol";
import { LOAD_MCP_TOOLS_TOOL, MCP_CATALOG_DESCRIPTION_MAX_CHARS } from "./limits.js";

// Deferred loading: "past a threshold, MCP tools are listed by name and one-line description in
// a compact catalog and their schemas are loaded on demand by a `load_mcp_tools` call, so the
// first request stays small". The catalog is the description of `load_mcp_tools`; a loaded tool
// joins the tool list from the next request on, and stays for the rest of the session.

export interface CatalogEntry {
  name: string;
  description: string;
}

export interface LoadOutcome {
  loaded: string[];
  already: string[];
  unknown: string[];
}

/** A description's first non-empty line, bounded, for one catalog line. */
export function oneLineDescription(description: string): string {
  const first =
    description
      .split("\n")
      .map((line) => line.trim())
      .find((line) => line !== "") ?? "";
  const flat = first.replace(/\s+/g, " ");
  return flat.length > MCP_CATALOG_DESCRIPTION_MAX_CHARS
    ? `${flat.slice(0, MCP_CATALOG_DESCRIPTION_MAX_CHARS - 1)}…`
    : flat;
}

/** The deferred MCP tools of one session, and which of them the model has loaded. */
export class McpToolCatalog {
  private readonly entries: ReadonlyMap<string, CatalogEntry>;
  private readonly loadedNames = new Set<string>();

  /** `loaded`: names already loaded (a resumed session's recorded tool list). */
  constructor(entries: readonly CatalogEntry[], loaded: Iterable<string> = []) {
    this.entries = new Map(entries.map((entry) => [entry.name, entry]));
    for (const name of loaded) if (this.entries.has(name)) this.loadedNames.add(name);
  }

  /** Whether `name` is in the catalog and not loaded yet (its schema is not offered). */
  isDeferred(name: string): boolean {
    return this.entries.has(name) && !this.loadedNames.has(name);
  }

  /** The tool list the model is offered: `specs` without the tools still waiting to be loaded. */
  offered(specs: readonly ToolSpec[]): ToolSpec[] {
    return specs.filter((spec) => !this.isDeferred(spec.name));
  }

  /** Loads the named tools; names not in the catalog are reported, not guessed. */
  load(names: readonly string[]): LoadOutcome {
    const outcome: LoadOutcome = { loaded: [], already: [], unknown: [] };
    for (const name of new Set(names)) {
      if (!this.entries.has(name)) outcome.unknown.push(name);
      else if (this.loadedNames.has(name)) outcome.already.push(name);
      else {
        this.loadedNames.add(name);
        outcome.loaded.push(name);
      }
    }
    return outcome;
  }

  /** The description of `load_mcp_tools`: what it does, then one line per catalog entry. */
  description(): string {
    const lines = [...this.entries.values()].map((entry) => `- ${entry.name}: ${entry.description}`);
    return [
      `MCP tools listed below are available, but their parameter schemas are not loaded yet. Call ${LOAD_MCP_TOOLS_TOOL} with the names of the tools you need; they join your tool list and can be called from your next step on. Load only what the task needs.`,
      "",
      ...lines,
    ].join("\n");
  }
}
