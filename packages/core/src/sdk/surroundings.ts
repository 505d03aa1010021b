import { type OmniMessage, warningEvent } from "@penguin/protocol";
import { discoverSkills, type SystemConfig, workspaceSkillsDir } from "@penguin/state";
import { CurrentDirectory } from "../environment/current-directory.js";
import { HookSet, type ToolNameCheck } from "../hooks/hook-set.js";
import { type AgentCatalog, loadSessionAgents, workspaceAgentsWarnings } from "../named-agents/catalog.js";
import { type HandlerCatalog, loadSessionHandlers, workspaceHandlersWarnings } from "../notices/index.js";
import { loadSessionSkills, type SkillCatalog } from "../skills/catalog.js";
import { isDirectory } from "../tools/files/fs-probes.js";
import { unknownHookToolsMessage } from "./hook-tools.js";
import { SetupError } from "./setup-error.js";

// What a session starts with besides its tools: the agent's current directory, the skills it
// knows, the named agents it can start, the event handlers that take its notices and the hooks
// that run around its calls. A resumed
// session goes back to the directory its last change_directory moved it to, with the skills,
// named agents and hooks loaded on the way.

/** The first line of a successful change_directory output (see tools/extended/change-directory.ts). */
const MOVED_TO = /^Current directory: ([^\n]+)/;

export interface SessionSurroundings {
  directory: CurrentDirectory;
  /** Absent when `skills.enabled` is false. */
  skills?: SkillCatalog;
  hooks: HookSet;
  /** The named agents (launch_agent starts them by name; the system prompt lists them). */
  agents: AgentCatalog;
  /** The event handlers that take notices (`.agents/events/<name>.md`). */
  handlers: HandlerCatalog;
  /**
   * What was skipped or not applied, as `warning` events: the session traces and streams them so
   * SDK and web users see what the operator's log says.
   */
  warnings: OmniMessage[];
}

export interface SurroundingsOptions {
  agentId: string;
  dataRoot: string;
  config: SystemConfig;
  /** The session's tool names: a workspace hook that names another is not loaded. */
  tools: ToolNameCheck;
  workspaceDir: string;
  /** A resumed session's records: the directories change_directory moved it to. */
  records?: readonly OmniMessage[];
  warn(line: string): void;
}

export async function prepareSurroundings(options: SurroundingsOptions): Promise<SessionSurroundings> {
  const { config, workspaceDir } = options;
  const prefix = `agent ${options.agentId}`;
  const warnings: OmniMessage[] = [];
  // Each warning goes to the operator's log (as before) and becomes a `warning` event.
  const note = (source: string, message: string, file?: string) => {
    options.warn(`${prefix}: ${message}`);
    warnings.push(warningEvent(source, message, file));
  };
  const directory = new CurrentDirectory(workspaceDir);
  let skills: SkillCatalog | undefined;
  if (config.skills.enabled) {
    const loaded = await loadSessionSkills(options.dataRoot, options.agentId, workspaceDir);
    skills = loaded.catalog;
    for (const problem of loaded.problems) note("skills", `skill skipped: ${problem}`);
    for (const notice of loaded.notices) note("skills", notice);
  }
  const named = await loadSessionAgents(
    options.dataRoot,
    options.agentId,
    workspaceDir,
    config.hooks.allow_workspace_hooks,
  );
  const agents = named.catalog;
  for (const warning of named.warnings) note("agents", warning.message, warning.file);
  // Event handlers follow the same opt-in as named agents and hooks.
  const loadedHandlers = await loadSessionHandlers(
    options.dataRoot,
    options.agentId,
    workspaceDir,
    config.hooks.allow_workspace_hooks,
  );
  const handlers = loadedHandlers.catalog;
  for (const warning of loadedHandlers.warnings) note("notices", warning.message, warning.file);
  const hooks = HookSet.fromConfig(config.hooks, workspaceDir, options.tools);
  const workspaceHooks = await hooks.loadFrom(workspaceDir);
  if (workspaceHooks.status === "invalid") {
    throw new SetupError(
      `the workspace's hooks file is invalid (workspace hooks are on for agent "${options.agentId}"):\n${workspaceHooks.message}`,
      "config",
    );
  }
  // At the start, as for an invalid file: the user opted in to these hooks and fixes them first.
  if (workspaceHooks.status === "loaded" && workspaceHooks.rejected.length > 0) {
    throw new SetupError(
      unknownHookToolsMessage(
        `the workspace's hooks file ${workspaceHooks.file} (workspace hooks are on for agent "${options.agentId}")`,
        workspaceHooks.rejected,
        options.tools,
      ),
      "config",
    );
  }
  if (workspaceHooks.status === "ignored") {
    note(
      "hooks",
      `${workspaceHooks.file} is ignored: workspace hooks run only with hooks.allow_workspace_hooks: true in the agent's system_config.yaml`,
    );
  }
  for (const dir of movedDirectories(options.records ?? [])) {
    if (!(await isDirectory(dir))) {
      note("directory", `the session's current directory ${dir} is gone; staying in ${directory.path}`);
      continue;
    }
    directory.moveTo(dir);
    if (skills) skills.add((await discoverSkills(workspaceSkillsDir(dir), "workspace")).skills);
    for (const warning of workspaceAgentsWarnings(await agents.loadWorkspace(dir))) {
      note("agents", warning.message, warning.file);
    }
    for (const warning of workspaceHandlersWarnings(await handlers.loadWorkspace(dir))) {
      note("notices", warning.message, warning.file);
    }
    const loaded = await hooks.loadFrom(dir);
    if (loaded.status === "invalid") note("hooks", `hooks of ${dir} not loaded: ${loaded.message}`);
    if (loaded.status === "loaded" && loaded.rejected.length > 0) {
      note("hooks", unknownHookToolsMessage(`hooks of ${dir} not loaded`, loaded.rejected, options.tools));
    }
  }
  return { directory, skills, hooks, agents, handlers, warnings };
}

/** The directories successful change_directory calls moved to, in order. */
export function movedDirectories(records: readonly OmniMessage[]): string[] {
  const calls = new Set<string>();
  const moved: string[] = [];
  for (const record of records) {
    if (record.type !== "model_msg") continue;
    const payload = record.payload as { type: string; name?: string; tool_call_id?: string };
    if (payload.type === "tool_call" && payload.name === "change_directory" && payload.tool_call_id) {
      calls.add(payload.tool_call_id);
    } else if (
      payload.type === "tool_call_output" &&
      payload.tool_call_id &&
      calls.has(payload.tool_call_id)
    ) {
      const output = record.payload as { output?: unknown; stop_reason?: string };
      if (output.stop_reason !== "completed" || typeof output.output !== "string") continue;
      const match = MOVED_TO.exec(output.output);
      if (match?.[1]) moved.push(match[1].trim());
    }
  }
  return moved;
}
