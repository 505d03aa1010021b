import {
  agentNamedAgentsDir,
  discoverNamedAgents,
  type NamedAgent,
  workspaceNamedAgentsDir,
} from "@penguin/state";
import type { FirstNameAdded } from "../skills/first-name-catalog.js";
import {
  type CatalogWarning,
  problemWarning,
  WorkspaceCatalog,
  type WorkspaceEntryKind,
  type WorkspaceLoad,
  workspaceLoadWarnings,
} from "../skills/workspace-catalog.js";

// The named agents a session knows: the agent's own (`<dataRoot>/agents/<agentId>/agents/`),
// then, only when the user opted in to workspace-provided configuration
// (`hooks.allow_workspace_hooks`, "Workspace-provided agents and handlers follow the same opt-in
// rule as workspace hooks"), the workspace's (`<workspace>/.agents/agents/`) and those of the
// directories change_directory enters. The first agent of a name wins, as for skills: a workspace
// cannot replace an agent the user defined by reusing its name, and a later directory cannot
// replace an earlier one (the prompt already listed it).

export type NamedAgentsAdded = FirstNameAdded<NamedAgent>;
/** What reading a directory's `.agents/agents/` did. */
export type WorkspaceAgentsLoad = WorkspaceLoad<NamedAgent>;
/** A line for a `warning` event, with the file it is about. */
export type NamedAgentWarning = CatalogWarning;

const NAMED_AGENTS: WorkspaceEntryKind<NamedAgent> = {
  noun: "named agent",
  plural: "workspace named agents",
  folderOf: workspaceNamedAgentsDir,
  async discover(folder) {
    const found = await discoverNamedAgents(folder, "workspace");
    return { entries: found.agents, problems: found.problems };
  },
};

export class AgentCatalog extends WorkspaceCatalog<NamedAgent> {
  constructor(allowWorkspaceAgents: boolean) {
    super(allowWorkspaceAgents, NAMED_AGENTS);
  }
}

/** The warnings a workspace load gives: skipped files, taken names, and an ignored folder. */
export function workspaceAgentsWarnings(load: WorkspaceAgentsLoad): NamedAgentWarning[] {
  return workspaceLoadWarnings(load, NAMED_AGENTS);
}

export interface SessionAgents {
  catalog: AgentCatalog;
  warnings: NamedAgentWarning[];
}

/** The named agents a new session starts with: the agent's own, then (opted in) the workspace's. */
export async function loadSessionAgents(
  dataRoot: string,
  agentId: string,
  workspaceDir: string,
  allowWorkspaceAgents: boolean,
): Promise<SessionAgents> {
  const catalog = new AgentCatalog(allowWorkspaceAgents);
  const own = await discoverNamedAgents(agentNamedAgentsDir(dataRoot, agentId), "agent");
  catalog.add(own.agents);
  const warnings = own.problems.map((problem) => problemWarning(problem, NAMED_AGENTS.noun));
  warnings.push(...workspaceAgentsWarnings(await catalog.loadWorkspace(workspaceDir)));
  return { catalog, warnings };
}
