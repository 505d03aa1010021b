import {
  agentEventHandlersDir,
  discoverEventHandlers,
  type EventHandler,
  NOTICE_TYPE_WILDCARD,
  noticeTypeMatches,
  workspaceEventHandlersDir,
} from "@penguin/state";
import {
  type CatalogWarning,
  problemWarning,
  WorkspaceCatalog,
  type WorkspaceEntryKind,
  type WorkspaceLoad,
  workspaceLoadWarnings,
} from "../skills/workspace-catalog.js";

// The event handlers a session knows: the agent's own (`<dataRoot>/agents/<agentId>/events/`),
// then, only when the user opted in to workspace-provided configuration
// (`hooks.allow_workspace_hooks`: "Workspace-provided agents and handlers follow the same opt-in
// rule as workspace hooks"), the workspace's (`<workspace>/.agents/events/`) and those of the
// directories change_directory enters. The first handler of a name wins, as for named agents.

/** What reading a directory's `.agents/events/` did. */
export type WorkspaceHandlersLoad = WorkspaceLoad<EventHandler>;
/** A line for a `warning` event, with the file it is about. */
export type HandlerWarning = CatalogWarning;

const HANDLERS: WorkspaceEntryKind<EventHandler> = {
  noun: "event handler",
  plural: "workspace event handlers",
  folderOf: workspaceEventHandlersDir,
  async discover(folder) {
    const found = await discoverEventHandlers(folder, "workspace");
    return { entries: found.handlers, problems: found.problems };
  },
};

export class HandlerCatalog extends WorkspaceCatalog<EventHandler> {
  constructor(allowWorkspaceHandlers: boolean) {
    super(allowWorkspaceHandlers, HANDLERS);
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

/** The warnings a workspace load gives: skipped files, taken names, and an ignored folder. */
export function workspaceHandlersWarnings(load: WorkspaceHandlersLoad): HandlerWarning[] {
  return workspaceLoadWarnings(load, HANDLERS);
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
  const warnings = own.problems.map((problem) => problemWarning(problem, HANDLERS.noun));
  warnings.push(...workspaceHandlersWarnings(await catalog.loadWorkspace(workspaceDir)));
  return { catalog, warnings };
}
