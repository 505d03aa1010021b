import {
  type Agent as AgentConfig,
  DEFAULT_AGENT_ID,
  ensureDefaultAgent,
  formatConfigErrors,
  loadAgent,
  loadProjectConfig,
  type ProjectConfig,
  type SystemConfig,
  systemConfigSchemas,
} from "@penguin/state";
import type { CreateAgentOptions } from "./agent-options.js";
import { SetupError } from "./setup-error.js";

/**
 * The agent's configuration: `config` given in code (checked, nothing read or written), else
 * its system_config.yaml (the default agent's is created on demand). Errors are SetupErrors.
 */
export async function loadAgentConfig(
  dataRoot: string,
  agentId: string,
  options: CreateAgentOptions,
): Promise<SystemConfig> {
  if (options.config) {
    const parsed = systemConfigSchemas().SystemConfigSchema.safeParse(options.config);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new SetupError(
        `invalid agent config at ${issue.path.join(".") || "(root)"}: ${issue.message}`,
        "config",
      );
    }
    return parsed.data;
  }
  const loaded =
    options.agentId && options.agentId !== DEFAULT_AGENT_ID
      ? await loadAgent(dataRoot, agentId)
      : await ensureDefaultAgent(dataRoot);
  if (!loaded.ok) {
    throw new SetupError(`cannot load agent "${agentId}":\n${formatConfigErrors(loaded.errors)}`, "config");
  }
  return (loaded.agent as AgentConfig).config;
}

/** The data root's project config (models, providers, keys, guardrail). */
export async function loadProject(dataRoot: string): Promise<ProjectConfig> {
  const project = await loadProjectConfig(dataRoot);
  if (!project.ok) {
    throw new SetupError(`cannot load the project config:\n${formatConfigErrors(project.errors)}`, "config");
  }
  return project.config;
}
