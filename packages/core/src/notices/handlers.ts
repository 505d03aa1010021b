import {
  agentEventHandlersDir,
  discoverEventHandlers,
  type EventHandler,
  type EventHandlerProblem,
  NOTICE_TYPE_WILDCARD,
  noticeTypeMatches,
  workspaceEventHandlersDir,
} from "@penguin/state";
import { type FirstNameAdded, FirstNameCatalog } from "../skills/first-name-catalog.js";

// The event handlers a session knows: the agent's own (`<dataRoot>/agents/<agentId>/events/`),
// then, only when the user opted in to workspace-provided configuration
// (`hooks.allow_workspace_hooks`: "Workspace-provided agents and handlers follow the same opt-in
// rule as workspace hooks"), the workspace's (`<workspace>/.agents/events/`) and those of the
// directories change_directory enters. The first handler of a name wins, as for named agents.

export type WorkspaceHandlersLoad =
  | { status: "none" }
  /** There are handler files, but the user has not opted in to workspace-provided configuration. */
  | { status: "ignored"; dir: string }
  | ({ status: "loaded"; dir: string; problems: EventHandlerProblem[] } & FirstNameAdded<EventHandler>);

export class HandlerCatalog extends FirstNameCatalog<EventHandler> {
  constructor(readonly allowWorkspaceHandlers: boolean) {
    super();
  }

  /** Reads `<dir>/.agents/events/` and adds its handlers when the user opted in. */
  async loadWorkspace(dir: string): Promise<WorkspaceHandlersLoad> {
    const folder = workspaceEventHandlersDir(dir);
    const found = await discoverEventHandlers(folder, "workspace");
    if (found.handlers.length === 0 && found.problems.length === 0) return { status: "none" };
    if (!this.allowWorkspaceHandlers) return { status: "ignored", dir: folder };
    return { status: "loaded", dir: folder, problems: found.problems, ...this.add(found.handlers) };
  }

  /**
   * The handler that takes a notice of `type`: an exact `type` first, then the longest prefix
   * pattern, then the first loaded; undefined when none matches (the notice is dropped).
   */
  handlerFor(type: string): EventHandler | undefined {
    let best: EventHandler | undefined;
    for (const handler of this.list()) {
      if (!noticeTypeMatches(handler.type, type)) continue;
      if (!best || specificity(handler) > specificity(best)) best = handler;
    }
    return best;
  }
}

/** An exact type outranks every pattern; a longer prefix outranks a shorter one. */
function specificity(handler: EventHandler): number {
  return handler.type.endsWith(NOTICE_TYPE_WILDCARD) ? handler.type.length : Number.MAX_SAFE_INTEGER;
}

/** A line for a `warning` event, with the file it is about. */
export interface HandlerWarning {
  message: string;
  file: string;
}

/** The warnings a workspace load gives: skipped files, taken names, and an ignored folder. */
export function workspaceHandlersWarnings(load: WorkspaceHandlersLoad): HandlerWarning[] {
  if (load.status === "none") return [];
  if (load.status === "ignored") {
    return [
      {
        file: load.dir,
        message: `${load.dir} is ignored: workspace event handlers load only with hooks.allow_workspace_hooks: true in the agent's system_config.yaml`,
      },
    ];
  }
  return [
    ...load.problems.map(problemWarning),
    ...load.shadowed.map(({ entry: handler, by }) => ({
      file: handler.file,
      message: `event handler skipped: ${handler.file}: the name "${handler.name}" is taken by ${by.file}`,
    })),
  ];
}

function problemWarning(problem: EventHandlerProblem): HandlerWarning {
  return { file: problem.file, message: `event handler skipped: ${problem.file}: ${problem.message}` };
}

/** The handlers a new session starts with: the agent's own, then (opted in) the workspace's. */
export async function loadSessionHandlers(
  dataRoot: string,
  agentId: string,
  workspaceDir: string,
  allowWorkspaceHandlers: boolean,
): Promise<{ catalog: HandlerCatalog; warnings: HandlerWarning[] }> {
  const catalog = new HandlerCatalog(allowWorkspaceHandlers);
  const own = await discoverEventHandlers(agentEventHandlersDir(dataRoot, agentId), "agent");
  catalog.add(own.handlers);
  const warnings = own.problems.map(problemWarning);
  warnings.push(...workspaceHandlersWarnings(await catalog.loadWorkspace(workspaceDir)));
  return { catalog, warnings };
}
