import { mcpSecretValues } from "@penguin/core";
import { listAgents, loadAgent, loadProjectConfig, secretValues } from "@penguin/state";

/**
 * The values the server's log must never show, whatever field or message they turn up in: the
 * project's keys (its `api_key`s, the variables they name and `<PROVIDER>_API_KEY`), every
 * credential-looking environment variable, the variables each agent lists in `secrets`, and its
 * MCP servers' env and header values — the same sets a session redacts from its tool output.
 * Read once at start: a key added while the server runs is covered from the next start. A config
 * that does not load contributes nothing (the sessions report it).
 */
export async function serverSecretValues(
  dataRoot: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string[]> {
  const values = new Set<string>();
  const secretEnvNames: string[] = [];
  for (const agentId of await listAgents(dataRoot)) {
    const loaded = await loadAgent(dataRoot, agentId);
    if (!loaded.ok) continue;
    secretEnvNames.push(...(loaded.agent.config.secrets ?? []));
    for (const value of mcpSecretValues(loaded.agent.config.tools.mcpServers)) values.add(value);
  }
  const project = await loadProjectConfig(dataRoot);
  if (project.ok) {
    for (const value of secretValues(project.config, env, secretEnvNames)) values.add(value);
  }
  return [...values].sort((a, b) => b.length - a.length);
}
