import { type ProjectConfig, type SystemConfig, secretValues } from "@penguin/state";
import { mcpSecretValues } from "../mcp/secrets.js";
import { createRecordingModel } from "../models/recorder.js";
import type { CreateSessionOptions } from "./agent-options.js";
import type { ResolvedModel } from "./model-choice.js";

// What a session keeps out of its outputs and recordings.

/**
 * Values redacted from tool output and recordings: the project's keys, the configured secrets
 * and the MCP servers' env and header values.
 */
export function sessionSecrets(
  project: ProjectConfig,
  config: SystemConfig,
  options: { secrets?: string[] },
): string[] {
  return [
    ...secretValues(project, process.env, config.secrets ?? []),
    ...mcpSecretValues(config.tools.mcpServers),
    ...(options.secrets ?? []),
  ];
}

/** The session's model, wrapped by the recorder when `record` names a cassette (created now). */
export function recordingModel(
  resolved: ResolvedModel,
  options: CreateSessionOptions,
  secretsOf: (options: CreateSessionOptions) => string[],
): ResolvedModel {
  if (!options.record) return resolved;
  return {
    ...resolved,
    adapter: createRecordingModel(resolved.adapter, options.record, { secrets: secretsOf(options) }),
  };
}
