import type { Dirent } from "node:fs";
import { access, readdir, readFile } from "node:fs/promises";
import { isSeq, parseDocument } from "yaml";
import { agentFileText, withPresetTools } from "./agent-file-text.js";
import { DEFAULT_AGENT_FILE_TEXT } from "./config-defaults.generated.js";
import { configDefault } from "./config-defaults.js";
import {
  type ConfigError,
  formatConfigErrors,
  formatFieldPath,
  ioError,
  PARSED_ONCE,
  parseYamlConfig,
} from "./config-errors.js";
import { agentsDir, DEFAULT_AGENT_ID, isValidAgentId, systemConfigFile } from "./paths.js";
import { writePrivateFile } from "./private-files.js";
import {
  loadSystemConfig,
  type SystemConfig,
  type SystemConfigInput,
  systemConfigSchemas,
} from "./system-config.js";
import type { ToolDefinitionConfig } from "./tool-definitions.js";
import { missingDefaultTools } from "./tool-registry.js";
import { writeYamlMemo } from "./yaml-memo.js";

/** A loaded agent: its id, the file it came from, and its parsed configuration. */
export interface Agent {
  id: string;
  file: string;
  config: SystemConfig;
}

export type AgentResult = { ok: true; agent: Agent } | { ok: false; message: string };
/** A loaded agent, or every problem with its file (see `formatConfigErrors`). */
export type AgentLoadResult = { ok: true; agent: Agent } | { ok: false; errors: ConfigError[] };

/**
 * Creates `agents/<agentId>/system_config.yaml`. The full tool list of its preset is written into
 * the file unless `config` brings its own: from then on the agent's toolset is frozen as written, so
 * an agent keeps the tools it was created with when Penguin's defaults change. The file is 0600
 * because MCP server entries may carry keys (env, headers). An existing agent is never replaced.
 */
export async function createAgent(
  root: string,
  agentId: string,
  config: SystemConfigInput = {},
): Promise<AgentResult> {
  if (!isValidAgentId(agentId)) return { ok: false, message: `invalid agent id ${JSON.stringify(agentId)}` };
  const file = systemConfigFile(root, agentId);
  // Without a config of its own, the file is the build's text and its value the build's
  // (config-defaults.ts): a user's first run neither stringifies YAML nor builds the schemas.
  const byDefault = Object.keys(config).length === 0;
  const withTools = withPresetTools(config);
  const checked = byDefault ? configDefault("defaultAgent") : checkAgentConfig(withTools);
  if (typeof checked === "string") return { ok: false, message: checked };
  const text = byDefault ? DEFAULT_AGENT_FILE_TEXT : agentFileText(withTools);
  try {
    await writePrivateFile(file, text, { overwrite: false });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return {
      ok: false,
      message: code === "EEXIST" ? `agent "${agentId}" already exists (${file})` : String(error),
    };
  }
  // The file's value is known, so the next load need not parse the YAML either (yaml-memo.ts).
  // test/config-defaults.test.ts checks that the default text reads back as exactly that value.
  if (byDefault) await writeYamlMemo(file, text, withTools, checked);
  return { ok: true, agent: { id: agentId, file, config: checked } };
}

/** `config` checked by the schema, or what is wrong with it (its first issue). */
function checkAgentConfig(config: SystemConfigInput): SystemConfig | string {
  const parsed = systemConfigSchemas().SystemConfigSchema.safeParse(config, PARSED_ONCE);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  return `invalid agent config at ${formatFieldPath(issue.path) || "(root)"}: ${issue.message}`;
}

export async function loadAgent(root: string, agentId: string): Promise<AgentLoadResult> {
  if (!isValidAgentId(agentId)) {
    return {
      ok: false,
      errors: [
        {
          file: "",
          line: 0,
          column: 0,
          path: "",
          message: `invalid agent id ${JSON.stringify(agentId)}`,
          kind: "io",
        },
      ],
    };
  }
  const file = systemConfigFile(root, agentId);
  const result = await loadSystemConfig(file);
  return result.ok ? { ok: true, agent: { id: agentId, file, config: result.config } } : result;
}

/** Ids of the agents under the data root (folders holding a system_config.yaml), sorted. */
export async function listAgents(root: string): Promise<string[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(agentsDir(root), { withFileTypes: true });
  } catch {
    return [];
  }
  const ids: string[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory() || !isValidAgentId(entry.name)) continue;
    try {
      await access(systemConfigFile(root, entry.name));
      ids.push(entry.name);
    } catch {
      // A folder without a config is not an agent.
    }
  }
  return ids.sort();
}

/** Loads the "default" agent, creating it first when it does not exist yet. */
export async function ensureDefaultAgent(root: string): Promise<AgentLoadResult> {
  // Every run after the first finds it: load it without building the file a creation would write.
  const exists = await access(systemConfigFile(root, DEFAULT_AGENT_ID)).then(
    () => true,
    () => false,
  );
  if (exists) return loadAgent(root, DEFAULT_AGENT_ID);
  const created = await createAgent(root, DEFAULT_AGENT_ID);
  if (created.ok) return created;
  // Already there (or created concurrently): load it, reporting an invalid file as such.
  return loadAgent(root, DEFAULT_AGENT_ID);
}

export type SyncToolsResult = { ok: true; added: string[]; file: string } | { ok: false; message: string };

/**
 * Adopts new default tools into an agent's frozen `tools.builtin` list: appends the entries of
 * the agent's preset (`tools.preset`, core when absent) that it lacks, keeping the rest of the file (comments and edits) as written. An agent that
 * omits `tools.builtin` already follows the defaults, so nothing is added.
 */
export async function syncAgentTools(root: string, agentId: string): Promise<SyncToolsResult> {
  if (!isValidAgentId(agentId)) return { ok: false, message: `invalid agent id ${JSON.stringify(agentId)}` };
  const file = systemConfigFile(root, agentId);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const { message } = ioError(file, error);
    return { ok: false, message: `${file}: ${message}` };
  }
  const parsed = parseYamlConfig(text, file, systemConfigSchemas().SystemConfigSchema);
  if (!parsed.ok) return { ok: false, message: formatConfigErrors(parsed.errors) };
  const builtin: ToolDefinitionConfig[] | undefined = parsed.config.tools.builtin;
  if (builtin === undefined) return { ok: true, added: [], file };
  const missing = missingDefaultTools(builtin, parsed.config.tools.preset);
  if (missing.length === 0) return { ok: true, added: [], file };
  // Edit the original document (not the parsed value) so comments and formatting survive.
  const document = parseDocument(text);
  const list = document.getIn(["tools", "builtin"], true);
  if (!isSeq(list)) return { ok: false, message: `${file}: tools.builtin is not a list` };
  for (const tool of missing) list.add(document.createNode(tool, { aliasDuplicateObjects: false }));
  await writePrivateFile(file, document.toString({ lineWidth: 0 }));
  return { ok: true, added: missing.map((tool) => tool.name), file };
}
