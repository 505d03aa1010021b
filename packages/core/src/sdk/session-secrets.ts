import { type McpServer, type ProjectConfig, type SystemConfig, secretValues } from "@penguin/state";
import { mcpSecretValues } from "../mcp/secrets.js";
import { createRecordingModel } from "../models/recorder.js";
import type { ResolvedModel } from "./model-choice.js";

/** Where a session's secret values come from. */
export interface SecretSources {
  project: ProjectConfig;
  config: SystemConfig;
  /** Every MCP server of the session: the agent's and the session's own. */
  mcpServers: readonly McpServer[];
  /** The session's `secrets` option. */
  secrets?: readonly string[];
}

/**
 * Values redacted from tool output, logs, recordings and the trace: the project's keys, the
 * configured secrets, the env and header values of every MCP server of the session (a server
 * an editor passes may carry a token), and the session's own `secrets`.
 */
export function sessionSecrets(sources: SecretSources): string[] {
  return [
    ...secretValues(sources.project, process.env, sources.config.secrets ?? []),
    ...mcpSecretValues(sources.mcpServers),
    ...(sources.secrets ?? []),
  ];
}

/** The session's model, wrapped by the recorder when `record` names a cassette (created now). */
export function recordingModel(
  resolved: ResolvedModel,
  record: string | undefined,
  secrets: () => string[],
): ResolvedModel {
  if (!record) return resolved;
  return { ...resolved, adapter: createRecordingModel(resolved.adapter, record, { secrets: secrets() }) };
}
