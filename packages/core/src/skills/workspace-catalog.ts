import { type FirstNameAdded, FirstNameCatalog } from "./first-name-catalog.js";

// A catalog whose entries come from the agent's own folder and, only when the user opted in to
// workspace-provided configuration ("Workspace-provided agents and handlers follow the same
// opt-in rule as workspace hooks"), from the workspace and the directories change_directory
// enters. Named agents and event handlers are both such catalogs; what differs is in a kind.

/** A file of a catalog folder that could not be used. */
export interface CatalogProblem {
  file: string;
  message: string;
}

/** A line for a `warning` event, with the file it is about. */
export interface CatalogWarning {
  message: string;
  file: string;
}

/** What reading a directory's folder of entries did. */
export type WorkspaceLoad<T> =
  | { status: "none" }
  /** There are files, but the user has not opted in to workspace-provided configuration. */
  | { status: "ignored"; dir: string }
  | ({ status: "loaded"; dir: string; problems: CatalogProblem[] } & FirstNameAdded<T>);

/** What differs between the kinds of entries a workspace folder holds. */
export interface WorkspaceEntryKind<T> {
  /** One entry, in a warning: "named agent". */
  noun: string;
  /** A workspace's entries, in the warning of an ignored folder: "workspace named agents". */
  plural: string;
  /** The folder of a directory's entries (`<dir>/.agents/agents`). */
  folderOf(dir: string): string;
  discover(folder: string): Promise<{ entries: T[]; problems: CatalogProblem[] }>;
}

export class WorkspaceCatalog<T extends { name: string; file: string }> extends FirstNameCatalog<T> {
  constructor(
    readonly allowWorkspace: boolean,
    private readonly kind: WorkspaceEntryKind<T>,
  ) {
    super();
  }

  /** Reads a directory's folder and adds its entries when the user opted in. */
  async loadWorkspace(dir: string): Promise<WorkspaceLoad<T>> {
    const folder = this.kind.folderOf(dir);
    const found = await this.kind.discover(folder);
    if (found.entries.length === 0 && found.problems.length === 0) return { status: "none" };
    if (!this.allowWorkspace) return { status: "ignored", dir: folder };
    return { status: "loaded", dir: folder, problems: found.problems, ...this.add(found.entries) };
  }
}

/** The warning of a file that was skipped. */
export function problemWarning(problem: CatalogProblem, noun: string): CatalogWarning {
  return { file: problem.file, message: `${noun} skipped: ${problem.file}: ${problem.message}` };
}

/** The warnings a workspace load gives: skipped files, taken names, and an ignored folder. */
export function workspaceLoadWarnings<T extends { name: string; file: string }>(
  load: WorkspaceLoad<T>,
  kind: Pick<WorkspaceEntryKind<T>, "noun" | "plural">,
): CatalogWarning[] {
  if (load.status === "none") return [];
  if (load.status === "ignored") {
    return [
      {
        file: load.dir,
        message: `${load.dir} is ignored: ${kind.plural} load only with hooks.allow_workspace_hooks: true in the agent's system_config.yaml`,
      },
    ];
  }
  return [
    ...load.problems.map((problem) => problemWarning(problem, kind.noun)),
    ...load.shadowed.map(({ entry, by }) => ({
      file: entry.file,
      message: `${kind.noun} skipped: ${entry.file}: the name "${entry.name}" is taken by ${by.file}`,
    })),
  ];
}
