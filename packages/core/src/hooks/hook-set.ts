import {
  formatConfigErrors,
  type HookEntry,
  type HooksSection,
  loadWorkspaceHooks,
  WORKSPACE_HOOKS_FILE,
  type WorkspaceHooksFile,
} from "@penguin/state";
import type {
  DirectoryHooks,
  HookPhase,
  HookWithUnknownTools,
  WorkspaceHooksLoad,
} from "../environment/hook-ports.js";

// Defined with the port the Environment receives; exported here too, where the hooks are.
export type { HookPhase, HookWithUnknownTools, WorkspaceHooksLoad };

// The hooks of one session: the agent's (system_config.yaml) and, only when the user opted in
// with `hooks.allow_workspace_hooks`, those of the workspace and of the directories
// change_directory enters ("Workspace-provided hooks run only when the user opts in").

/** Workspace-provided hooks are named `workspace:<name>` in events and decisions. */
export const WORKSPACE_HOOK_PREFIX = "workspace:";

/** A hook as the session runs it. */
export interface ActiveHook extends HookEntry {
  /** Its name in `hook_result` events and `approval_decision` sources. */
  label: string;
  /** Where its command runs: the workspace for the agent's hooks, the providing directory otherwise. */
  cwd: string;
  origin: "config" | "workspace";
}

/**
 * The tool names a session has, to check a hook's `tools` against: a misspelt name would make
 * the hook silently never run, and a before-hook is often a safety check.
 */
export interface ToolNameCheck {
  has(name: string): boolean;
  /** The names there are, for a message. */
  describe(): string;
}

type HookLists = Pick<HooksSection, "before_tool" | "after_tool">;

/** The hooks of `lists` that name a tool `tools` does not have, with those names. */
export function hooksWithUnknownTools(
  lists: HookLists,
  tools: ToolNameCheck,
  labelPrefix = "",
): HookWithUnknownTools[] {
  const found: HookWithUnknownTools[] = [];
  for (const phase of ["before_tool", "after_tool"] as const) {
    for (const hook of lists[phase]) {
      const unknown = (hook.tools ?? []).filter((name) => !tools.has(name));
      if (unknown.length > 0) found.push({ label: `${labelPrefix}${hook.name}`, phase, unknown });
    }
  }
  return found;
}

/** One line per hook: which names are unknown (the caller adds the list of tools there are). */
export function describeUnknownHookTools(hooks: readonly HookWithUnknownTools[]): string {
  return hooks
    .map(
      (hook) =>
        `hook "${hook.label}" (${hook.phase}) lists ${hook.unknown.map((name) => `"${name}"`).join(", ")} in tools, which no tool has`,
    )
    .join("; ");
}

export class HookSet implements DirectoryHooks {
  private readonly lists: Record<HookPhase, ActiveHook[]> = { before_tool: [], after_tool: [] };

  /** `tools`: the session's tool names; a workspace hook that names another is not loaded. */
  constructor(
    readonly allowWorkspaceHooks: boolean,
    private readonly tools?: ToolNameCheck,
  ) {}

  /**
   * The agent's own hooks, run in the workspace. Their tool names are checked when the agent is
   * loaded (an unknown name is a configuration error there), not here.
   */
  static fromConfig(section: HooksSection, workspaceDir: string, tools?: ToolNameCheck): HookSet {
    const set = new HookSet(section.allow_workspace_hooks, tools);
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

  /**
   * Adds a directory's hooks; a label already present (the same file read twice) is kept once,
   * and a hook in `skip` (by label) is left out.
   */
  addWorkspaceHooks(file: WorkspaceHooksFile, dir: string, skip: ReadonlySet<string> = new Set()): string[] {
    const added: string[] = [];
    for (const phase of ["before_tool", "after_tool"] as const) {
      for (const hook of file[phase]) {
        const label = `${WORKSPACE_HOOK_PREFIX}${hook.name}`;
        if (skip.has(`${phase}\u0000${label}`)) continue;
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
    // A directory's hooks must not break the session: one naming an unknown tool is left out and
    // reported; the others load.
    const rejected = this.tools
      ? hooksWithUnknownTools(loaded.config, this.tools, WORKSPACE_HOOK_PREFIX)
      : [];
    const skip = new Set(rejected.map((hook) => `${hook.phase}\u0000${hook.label}`));
    return { status: "loaded", file, labels: this.addWorkspaceHooks(loaded.config, dir, skip), rejected };
  }

  /** The session's tool names, for a message about a hook that names another. */
  describeTools(): string | undefined {
    return this.tools?.describe();
  }
}
