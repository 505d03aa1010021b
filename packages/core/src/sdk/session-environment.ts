import { type ProjectConfig, type SystemConfig, writeGuardEnabled } from "@penguin/state";
import type { TraceLocation, TraceWriter } from "@penguin/trace";
import { checkpointBookFor } from "../checkpoints/index.js";
import { Environment } from "../environment/environment.js";
import type { FileAccess } from "../environment/file-access.js";
import { SecretRedactor } from "../environment/redact.js";
import type { BuiltinTool } from "../environment/types.js";
import type { PathConfinement } from "../environment/workspace-confinement.js";
import { HookRunner } from "../hooks/runner.js";
import type { ProcessManager } from "../processes/process-manager.js";
import type { AgentLogger } from "./agent-options.js";
import { effectiveAllowedTools } from "./allowed-tools.js";
import type { ResolvedModel } from "./model-choice.js";
import type { SessionSurroundings } from "./surroundings.js";
import { describeImageWith } from "./vision.js";

// Where a session's tool calls run: its Environment, with the hooks around every call.

export interface SessionEnvironmentInput {
  sessionId: string;
  workspaceDir: string;
  scratchpadDir: string;
  config: SystemConfig;
  project: ProjectConfig;
  resolved: ResolvedModel;
  tools: BuiltinTool[];
  secrets: string[];
  processes: ProcessManager;
  surroundings: SessionSurroundings;
  logger: AgentLogger;
  /** Where the checkpoints of the session's file changes are recorded (`root`: its top-level session). */
  checkpoints: { trace: TraceWriter; location: TraceLocation; root: string };
  /** Where the file tools read and write text (absent: the disk). */
  files?: FileAccess;
  /** Where its file tools may go (a sandboxed session's workspace); absent: anywhere. */
  confinement?: PathConfinement;
  /** A sandbox without network: no tool fetches URLs. */
  offline?: boolean;
}

export function sessionEnvironment(input: SessionEnvironmentInput): {
  environment: Environment;
  hookRunner: HookRunner;
} {
  const { config, resolved, secrets } = input;
  const adapter = resolved.adapter;
  const { directory, skills, hooks, agents, handlers } = input.surroundings;
  // Always a runner: change_directory may add a directory's hooks (or report them ignored)
  // later; with no hooks, a call costs an empty loop.
  const hookRunner = new HookRunner(hooks, {
    sessionId: input.sessionId,
    workspaceDir: input.workspaceDir,
    currentDir: () => directory.path,
    redact: (text) => new SecretRedactor(secrets).redact(text),
  });
  const environment = new Environment({
    directory,
    skills,
    agents,
    handlers,
    hooks: hookRunner,
    allowedTools: effectiveAllowedTools(config.allowed_tools),
    tools: input.tools,
    sessionId: input.sessionId,
    workspaceDir: input.workspaceDir,
    scratchpadDir: input.scratchpadDir,
    checkpoints: checkpointBookFor({
      sessionId: input.sessionId,
      rootSessionId: input.checkpoints.root,
      scratchpadDir: input.scratchpadDir,
      trace: input.checkpoints.trace,
      location: input.checkpoints.location,
    }),
    secrets,
    processes: input.processes,
    modelHasVision: adapter.info.vision,
    describeImage:
      resolved.describeImage ??
      (adapter.info.vision
        ? undefined
        : describeImageWith(input.project, { timeoutMs: config.model.timeoutMs })),
    warn: (line) => input.logger.warn(line),
    writeGuard: writeGuardEnabled(config.tools),
    files: input.files,
    ...(input.confinement ? { confinement: input.confinement } : {}),
    ...(input.offline ? { offline: true } : {}),
  });
  return { environment, hookRunner };
}
