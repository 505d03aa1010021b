import {
  formatConfigErrors,
  type HookEntry,
  type HooksSection,
  loadWorkspaceHooks,
  WORKSPACE_HOOKS_FILE,
  type WorkspaceHooksFile,
} from "@penguin/state";

// The hooks of one session: the agent's (system_config.yaml) and, only when the user opted in
// with `hooks.allow_workspace_hooks`, those of the workspace and of the directories
// change_directory enters ("Workspace-provided hooks run only when the user opts in").

/** Workspace-provided hooks are named `workspace:<name>` in events and decisions. */
export const WORKSPACE_HOOK_PREFIX = "workspace:";

export type HookPhase = "before_tool" | "after_tool";

/** A hook as the session runs it. */
export interface ActiveHook extends HookEntry {
  /** Its name in `hook_result` events and `approval_decision` sources. */
  label: string;
  /** Where its command runs: the workspace for the agent's hooks, the providing directory otherwise. */
  cwd: string;
  origin: "config" | "workspace";
}

/** What reading a directory's `.agents/hooks.yaml` did. */
export type WorkspaceHooksLoad =
  | { status: "none" }
  | { status: "ignored"; file: string }
  | { status: "loaded"; file: string; labels: string[] }
  | { status: "invalid"; file: string; message: string };

export class HookSet {
  private readonly lists: Record<HookPhase, ActiveHook[]> = { before_tool: [], after_tool: [] };

  constructor(readonly allowWorkspaceHooks: boolean) {}

  /** The agent's own hooks, run in the workspace. */
  static fromConfig(section: HooksSection, workspaceDir: string): HookSet {
    const set = new HookSet(section.allow_workspace_hooks);
    for (const phase of ["before_tool", "after_tool"] as const) {
      for (const hook of section[phase]) {
        set.lists[phase].push({ ...hook, label: hook.name, cwd: workspaceDir, origin: "config" });
      }
    }
    return set;
  }

  get isEmpty(): boolean {
    return this.lists.before_tool.length === 0 && this.lists.after_tool.length === 0;
  }

  /** The hooks of a phase that apply to a tool, in order (the agent's first, then the workspaces'). */
  matching(phase: HookPhase, toolName: string): ActiveHook[] {
    return this.lists[phase].filter((hook) => hook.tools === undefined || hook.tools.includes(toolName));
  }

  all(phase: HookPhase): readonly ActiveHook[] {
    return this.lists[phase];
  }

  /** Adds a directory's hooks; a label already present (the same file read twice) is kept once. */
  addWorkspaceHooks(file: WorkspaceHooksFile, dir: string): string[] {
    const added: string[] = [];
    for (const phase of ["before_tool", "after_tool"] as const) {
      for (const hook of file[phase]) {
        const label = `${WORKSPACE_HOOK_PREFIX}${hook.name}`;
        const list = this.lists[phase];
        if (list.some((h) => h.label === label && h.cwd === dir)) continue;
        list.push({ ...hook, label, cwd: dir, origin: "workspace" });
        added.push(`${label} (${phase})`);
      }
    }
    return added;
  }

  /** Reads `<dir>/.agents/hooks.yaml` and adds its hooks when the user opted in. */
  async loadFrom(dir: string): Promise<WorkspaceHooksLoad> {
    const loaded = await loadWorkspaceHooks(dir);
    if (loaded === undefined) return { status: "none" };
    const file = `${dir.replace(/\/$/, "")}/${WORKSPACE_HOOKS_FILE}`;
    if (!this.allowWorkspaceHooks) return { status: "ignored", file };
    if (!loaded.ok) return { status: "invalid", file, message: formatConfigErrors(loaded.errors) };
    return { status: "loaded", file, labels: this.addWorkspaceHooks(loaded.config, dir) };
  }
}
