import { type AgentLogger, mcpSecretValues } from "@penguin/core";
import type { OmniMessage } from "@penguin/protocol";
import {
  createLogger,
  credentialEnvValues,
  DEFAULT_AGENT_ID,
  loadAgent,
  loadProjectConfig,
  logsDir,
  redactSecrets,
  secretValues,
} from "@penguin/state";
import { UsageError } from "./exit-codes.js";

/** `PENGUIN_LOG=debug` turns on the log file; `--verbose` is the same as `PENGUIN_LOG=debug`. */
export const LOG_LEVEL_ENV = "PENGUIN_LOG";
export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;
export const CLI_LOG_FILE_NAME = "cli.log";

/** The minimum the CLI logs: what happened, never the content of prompts, answers or outputs. */
export interface CliLog {
  /** The log file, when logging is on. */
  file?: string;
  /** For `createAgent`: warnings go to stderr (as always) and to the file. */
  agentLogger: AgentLogger;
  debug(fields: Record<string, unknown>, message: string): void;
  /** One record per complete message or event of a session (partials are skipped). */
  message(message: OmniMessage): void;
  /**
   * More values to scrub from what is logged and warned from now on: those a client hands over
   * while the process runs (an editor's MCP server env and headers).
   */
  addSecrets(values: readonly string[]): void;
}

/** The string values of `fields` with `secrets` scrubbed (the log keeps ids and counts, no more). */
function scrubFields(fields: Record<string, unknown>, secrets: readonly string[]): Record<string, unknown> {
  if (secrets.length === 0) return fields;
  return Object.fromEntries(
    Object.entries(fields).map(([key, value]) => [
      key,
      typeof value === "string" ? redactSecrets(value, secrets) : value,
    ]),
  );
}

/**
 * Structured pino logs in `<data root>/logs/cli.log` (0600), never on stdout. Off unless
 * `PENGUIN_LOG` names a level or `--verbose` is given; warnings reach stderr either way.
 */
export async function openCliLog(
  dataRoot: string,
  verbose: boolean | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<CliLog> {
  const added: string[] = [];
  const addSecrets = (values: readonly string[]) => {
    for (const value of values) if (value && !added.includes(value)) added.push(value);
  };
  const stderrWarn = (line: string) => process.stderr.write(`${redactSecrets(line, added)}\n`);
  const wanted = env[LOG_LEVEL_ENV] || (verbose ? "debug" : undefined);
  if (wanted === undefined) {
    return { agentLogger: { warn: stderrWarn }, debug: () => {}, message: () => {}, addSecrets };
  }
  if (!(LOG_LEVELS as readonly string[]).includes(wanted)) {
    throw new UsageError(
      `${LOG_LEVEL_ENV}="${wanted}" is not a log level: use one of ${LOG_LEVELS.join(", ")}`,
    );
  }
  const level = verbose && wanted !== "trace" ? "debug" : (wanted as (typeof LOG_LEVELS)[number]);
  const file = `${logsDir(dataRoot)}/${CLI_LOG_FILE_NAME}`;
  const logger = createLogger({ file, level, secrets: await logSecrets(dataRoot, env) });
  return {
    file,
    agentLogger: {
      warn: (line) => {
        logger.warn(redactSecrets(line, added));
        stderrWarn(line);
      },
    },
    addSecrets,
    debug: (fields, message) => logger.debug(scrubFields(fields, added), message),
    message: (message) => {
      if (message.type === "session_meta") {
        const { session_id, provider, model_id, workspace } = message.payload;
        logger.debug({ session_id, provider, model_id, workspace }, "session_meta");
        return;
      }
      const payload = message.payload as { type: string } & Record<string, unknown>;
      if (payload.type.startsWith("partial_")) return;
      logger.debug(scrubFields({ ...summaryOf(payload), origin: message.origin }, added), payload.type);
    },
  };
}

/**
 * The values scrubbed from the log: the same list a session redacts from tool output (the
 * project's `api_key` values and key variables, the agent's configured `secrets`, every
 * credential-looking variable, and the MCP servers' env and header values). A config that does
 * not load yet gives what it can: the environment's credentials (the agent reports the error).
 */
async function logSecrets(dataRoot: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  const [project, agent] = await Promise.all([
    loadProjectConfig(dataRoot),
    loadAgent(dataRoot, DEFAULT_AGENT_ID),
  ]);
  const config = agent.ok ? agent.agent.config : undefined;
  return [
    ...(project.ok ? secretValues(project.config, env, config?.secrets ?? []) : credentialEnvValues(env)),
    ...mcpSecretValues(config?.tools.mcpServers ?? []),
  ];
}

/** The fields of a record worth a log line: ids, names, statuses and counts, not content. */
function summaryOf(payload: { type: string } & Record<string, unknown>): Record<string, unknown> {
  const keep = [
    "tool_call_id",
    "name",
    "decision",
    "source",
    "status",
    "stop_reason",
    "attempt",
    "retry_in_ms",
    "error_message",
    "session",
    "session_cost_usd",
    "reason",
  ];
  const out: Record<string, unknown> = {};
  for (const key of keep) if (payload[key] !== undefined) out[key] = payload[key];
  if (typeof payload.output === "string") out.output_chars = payload.output.length;
  if (typeof payload.text === "string") out.text_chars = payload.text.length;
  return out;
}
