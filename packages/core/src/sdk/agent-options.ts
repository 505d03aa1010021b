import type { McpServerInput, SystemConfigInput } from "@penguin/state";
import type { ModelPrices, SessionBudget } from "../engine/limits.js";
import type { RetryPolicy } from "../engine/retry.js";
import type { FileAccess } from "../environment/file-access.js";
import type { ModelAdapter, ThinkingLevel } from "../models/types.js";
import type { OnAsk } from "../tools/messaging/index.js";
import type { CustomToolRegistration } from "./custom-tools.js";

// The options of the SDK's entry points (createAgent, createSession, resumeSession): the public
// shapes, kept apart from the Agent that reads them.

export interface AgentLogger {
  warn(message: string): void;
}

export interface CreateAgentOptions {
  /** The data root (default: `PENGUIN_HOME`, else `~/.penguin/data`). */
  dataRoot?: string;
  /** The agent whose `system_config.yaml` configures sessions (default: "default", created on demand). */
  agentId?: string;
  /** A configuration in code instead of the agent's file (nothing is read or written for it). */
  config?: SystemConfigInput;
  /** Tools registered in code; they run under the same contract, approval and trace as the built-ins. */
  tools?: CustomToolRegistration[];
  logger?: AgentLogger;
}

export interface CreateSessionOptions {
  /** The folder the agent works in (must exist). */
  workspaceDir: string;
  /**
   * "provider/model-id" (from the project config), "replay:FILE" (a cassette), or an adapter.
   * Default: the project config's `default_model`.
   */
  model?: string | ModelAdapter;
  /** How hard the model thinks (default: the agent's `model.thinking_level`); `run` may override it. */
  thinkingLevel?: ThinkingLevel;
  /**
   * MCP servers for this session only (an editor's), besides the agent's `tools.mcpServers`:
   * started the same way, their tools named `mcp__<name>__<tool>`. A name an agent's server
   * has, a name given twice or an invalid definition is a SetupError. Their `env` and `headers`
   * values are redacted like secrets. Subagents get only their agent's configured servers.
   */
  mcpServers?: McpServerInput[];
  /**
   * Records every model request of the session to this cassette file (YAML, mode 0600, rewritten
   * after each request; secrets redacted), for replay with the model `replay:FILE`.
   */
  record?: string;
  /** Model requests per task (default: the agent's `max_turns`; -1 or absent: unlimited). */
  maxTurns?: number;
  budget?: SessionBudget;
  /** Values to redact from every tool output (besides the project's API keys). */
  secrets?: string[];
  /** Retry timing (tests make it fast); the default is 5 retries, 2 s doubling to 30 s. */
  retry?: Partial<RetryPolicy>;
  /** Prices when the project config has none for the model. */
  prices?: ModelPrices;
  /**
   * Answers the agent's `ask` (its questions to the user): resolve with the answer; honour
   * `question.signal` (it aborts when the ask timed out or the task was interrupted). A run's own
   * `onAsk` wins. Without either, `ask` fails with "no one can answer questions in this session".
   */
  onAsk?: OnAsk;
  /**
   * Where read_file, edit_file and write_file read and write the text of files (e.g. an editor's
   * buffers, for `penguin acp`); absent: the disk. Commands and the other tools see the disk.
   */
  files?: FileAccess;
  /**
   * The execution profile its tools run under (`native`, `sandbox`, or one of the agent's
   * `exec.profiles`); default the agent's `exec.profile`. An unknown name is a SetupError.
   * Recorded in session_meta: a resumed session keeps it, and its subagents run under it.
   */
  executionProfile?: string;
}

export interface ResumeSessionOptions {
  /** Another adapter for the recorded model (default: the one session_meta names). */
  model?: ModelAdapter;
  /** See `CreateSessionOptions.mcpServers` (a resumed session gets only the servers given now). */
  mcpServers?: McpServerInput[];
  thinkingLevel?: ThinkingLevel;
  maxTurns?: number;
  budget?: SessionBudget;
  secrets?: string[];
  retry?: Partial<RetryPolicy>;
  prices?: ModelPrices;
  /** See `CreateSessionOptions.onAsk`. */
  onAsk?: OnAsk;
  /** See `CreateSessionOptions.files`. */
  files?: FileAccess;
}
