import {
  type Agent,
  type AgentLoadResult,
  BUILTIN_TOOL_NAMES,
  DEFAULT_AGENT_ID,
  ensureDefaultAgent,
  isValidAgentId,
  listAgents,
  loadAgent,
  missingDefaultTools,
  renderDefaultsYaml,
  type SystemConfig,
  syncAgentTools,
} from "@penguin/state";
import { Document } from "yaml";
import { askConsent } from "../confirm.js";
import { type DataRootOptions, dataRootOf } from "../data-root.js";
import { EXIT_COMPLETED, EXIT_TASK_FAILED, UsageError } from "../exit-codes.js";
import { maskSecretEntries } from "../mask.js";
import { note, out } from "../output.js";
import { colourEnabled, createStyle } from "../render/style.js";
import { reportConfigErrors } from "./config.js";

export interface AgentOptions extends DataRootOptions {
  /** The agent's id; default "default", created on demand. */
  agent?: string;
}

/**
 * An agent's loaded config. The default agent is created on demand (as a session would); another
 * id must exist. An invalid file is reported line by line (exit 2).
 */
async function agentOf(root: string, agentId: string): Promise<Agent | number> {
  if (!isValidAgentId(agentId)) {
    throw new UsageError(
      `invalid agent id ${JSON.stringify(agentId)}: ids are 1-128 letters, digits, '-' or '_', starting with a letter or digit`,
    );
  }
  let loaded: AgentLoadResult;
  if (agentId === DEFAULT_AGENT_ID) loaded = await ensureDefaultAgent(root);
  else {
    const agents = await listAgents(root);
    if (!agents.includes(agentId)) {
      throw new UsageError(
        `no agent "${agentId}" under ${root}: the agents are ${[...new Set([DEFAULT_AGENT_ID, ...agents])].join(", ")}`,
      );
    }
    loaded = await loadAgent(root, agentId);
  }
  return loaded.ok ? loaded.agent : reportConfigErrors(loaded.errors);
}

/** The config as shown: MCP server headers and environment values that look secret are masked. */
function withMaskedSecrets(config: SystemConfig): SystemConfig {
  const copy = structuredClone(config);
  for (const server of copy.tools.mcpServers) {
    const settings = server.config as { env?: Record<string, string>; headers?: Record<string, string> };
    if (settings.env) settings.env = maskSecretEntries(settings.env);
    if (settings.headers) settings.headers = maskSecretEntries(settings.headers);
  }
  return copy;
}

/** `penguin config show`: the agent's effective system_config.yaml (defaults filled in), as YAML. */
export async function configShow(opts: AgentOptions): Promise<number> {
  const root = dataRootOf(opts);
  const agent = await agentOf(root, opts.agent ?? DEFAULT_AGENT_ID);
  if (typeof agent === "number") return agent;
  const comments = [
    ` agent "${agent.id}": ${agent.file}`,
    " Effective configuration: fields the file leaves out are shown with their default values.",
  ];
  if (agent.config.system_prompt === undefined) {
    comments.push(
      " system_prompt is omitted: the built-in prompt is used (`penguin config defaults` shows it).",
    );
  }
  if (agent.config.tools.builtin === undefined) {
    comments.push(
      " tools.builtin is omitted: the default toolset is in effect and follows Penguin's defaults:",
      `   ${BUILTIN_TOOL_NAMES.join(", ")}`,
      " (`penguin config defaults` prints their definitions).",
    );
  }
  const document = new Document(withMaskedSecrets(agent.config), { aliasDuplicateObjects: false });
  document.commentBefore = comments.join("\n");
  process.stdout.write(document.toString({ lineWidth: 0 }));
  return EXIT_COMPLETED;
}

/** `penguin config defaults`: the default definitions as YAML a user can copy. */
export async function configDefaults(): Promise<number> {
  process.stdout.write(renderDefaultsYaml());
  return EXIT_COMPLETED;
}

export interface ToolsSyncOptions extends AgentOptions {
  yes?: boolean;
}

/**
 * `penguin config tools sync`: adopts the default tool entries an agent's frozen list lacks. It
 * shows the change first; without `--yes` and with no terminal to ask on, it stops there (a dry
 * run that changes nothing).
 */
export async function toolsSync(opts: ToolsSyncOptions): Promise<number> {
  const root = dataRootOf(opts);
  const agent = await agentOf(root, opts.agent ?? DEFAULT_AGENT_ID);
  if (typeof agent === "number") return agent;
  const builtin = agent.config.tools.builtin;
  if (builtin === undefined) {
    out(`agent "${agent.id}" omits tools.builtin, so it follows the default toolset: nothing to sync`);
    return EXIT_COMPLETED;
  }
  const missing = missingDefaultTools(builtin, agent.config.tools.preset);
  if (missing.length === 0) {
    out(`agent "${agent.id}" has every default tool: nothing to sync`);
    return EXIT_COMPLETED;
  }

  const style = createStyle(colourEnabled(process.stdout));
  const names = missing.map((tool) => tool.name);
  out(`agent "${agent.id}" (${agent.file}) lacks ${missing.length} default tool(s): ${names.join(", ")}`);
  out(`--- ${agent.file}`);
  out(`+++ ${agent.file} (after sync)`);
  out(" tools:");
  out("   builtin:");
  for (const tool of builtin) out(style.dim(`     - name: ${tool.name}  # kept as written`));
  const added = new Document(missing, { aliasDuplicateObjects: false }).toString({ lineWidth: 0 });
  for (const line of added.replace(/\n$/, "").split("\n")) out(style.green(`+    ${line}`));

  const consent = await askConsent(`add ${names.join(", ")} to ${agent.file}?`, opts.yes);
  if (consent === "no-terminal") {
    note("dry run: nothing changed (stdin is not a terminal); run again with --yes to add these tools");
    return EXIT_COMPLETED;
  }
  if (consent === "refused") {
    note("nothing changed");
    return EXIT_TASK_FAILED;
  }
  const result = await syncAgentTools(root, agent.id);
  if (!result.ok) throw new UsageError(result.message, EXIT_TASK_FAILED);
  out(`added ${result.added.join(", ")} to ${result.file}`);
  return EXIT_COMPLETED;
}
