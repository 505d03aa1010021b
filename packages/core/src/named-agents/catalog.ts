import {
  agentNamedAgentsDir,
  discoverNamedAgents,
  type NamedAgent,
  type NamedAgentProblem,
  workspaceNamedAgentsDir,
} from "@penguin/state";
import { type FirstNameAdded, FirstNameCatalog } from "../skills/first-name-catalog.js";

// The named agents a session knows: the agent's own (`<dataRoot>/agents/<agentId>/agents/`),
// then, only when the user opted in to workspace-provided configuration
// (`hooks.allow_workspace_hooks`, "Workspace-provided agents and handlers follow the same opt-in
// rule as workspace hooks"), the workspace's (`<workspace>/.agents/agents/`) and those of the
// directories change_directory enters. The first agent of a name wins, as for skills: a workspace
// cannot replace an agent the user defined by reusing its name, and a later directory cannot
// replace an earlier one (the prompt already listed it).

export type NamedAgentsAdded = FirstNameAdded<NamedAgent>;

/** What reading a directory's `.agents/agents/` did. */
export type WorkspaceAgentsLoad =
  | { status: "none" }
  /** There are agent files, but the user has not opted in to workspace-provided configuration. */
  | { status: "ignored"; dir: string }
  | ({ status: "loaded"; dir: string; problems: NamedAgentProblem[] } & NamedAgentsAdded);

export class AgentCatalog extends FirstNameCatalog<NamedAgent> {
  constructor(readonly allowWorkspaceAgents: boolean) {
    super();
  }

  /** Reads `<dir>/.agents/agents/` and adds its agents when the user opted in. */
  async loadWorkspace(dir: string): Promise<WorkspaceAgentsLoad> {
    const folder = workspaceNamedAgentsDir(dir);
    const found = await discoverNamedAgents(folder, "workspace");
    if (found.agents.length === 0 && found.problems.length === 0) return { status: "none" };
    if (!this.allowWorkspaceAgents) return { status: "ignored", dir: folder };
    return { status: "loaded", dir: folder, problems: found.problems, ...this.add(found.agents) };
  }
}

/** A line for a `warning` event, with the file it is about. */
export interface NamedAgentWarning {
  message: string;
  file: string;
}

/** The warnings a workspace load gives: skipped files, taken names, and an ignored folder. */
export function workspaceAgentsWarnings(load: WorkspaceAgentsLoad): NamedAgentWarning[] {
  if (load.status === "none") return [];
  if (load.status === "ignored") {
    return [
      {
        file: load.dir,
        message: `${load.dir} is ignored: workspace named agents load only with hooks.allow_workspace_hooks: true in the agent's system_config.yaml`,
      },
    ];
  }
  return [
    ...load.problems.map(problemWarning),
    ...load.shadowed.map(({ entry: agent, by }) => ({
      file: agent.file,
      message: `named agent skipped: ${agent.file}: the name "${agent.name}" is taken by ${by.file}`,
    })),
  ];
}

function problemWarning(problem: NamedAgentProblem): NamedAgentWarning {
  return { file: problem.file, message: `named agent skipped: ${problem.file}: ${problem.message}` };
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
  const warnings = own.problems.map(problemWarning);
  warnings.push(...workspaceAgentsWarnings(await catalog.loadWorkspace(workspaceDir)));
  return { catalog, warnings };
}
