import type { AgentCatalog } from "../named-agents/catalog.js";
import type { HandlerCatalog } from "../notices/handlers.js";
import type { SkillCatalog } from "../skills/catalog.js";
import type { DirectoryHooks } from "./hook-ports.js";

// The agent's current directory ("moves the agent's current directory, which becomes the default
// for command tools and for relative paths of file tools"). It starts at the session's
// workspace, which stays the root for safety checks (remove_path never removes it).

export class CurrentDirectory {
  private current: string;

  constructor(readonly root: string) {
    this.current = root;
  }

  get path(): string {
    return this.current;
  }

  /** Moves to an absolute directory (change_directory checks it first). */
  moveTo(dir: string): void {
    this.current = dir;
  }
}

/** What a session's tools know about where the agent is and what it loaded there. */
export interface AgentPlace {
  directory: CurrentDirectory;
  /** The skills use_skill loads from; absent when `skills.enabled` is false. */
  skills?: SkillCatalog;
  /** The named agents, which change_directory adds a directory's agents to (with the opt-in). */
  agents?: AgentCatalog;
  /** The event handlers, which change_directory adds a directory's handlers to (with the opt-in). */
  handlers?: HandlerCatalog;
  /** The session's hooks, which change_directory adds a directory's hooks to (with the opt-in). */
  hooks?: DirectoryHooks;
}

/** A tool call of the current round, as the engine saw it. */
export interface RoundCall {
  tool_call_id: string;
  name: string;
}
