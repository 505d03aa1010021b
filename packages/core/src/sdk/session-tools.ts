import { readFileRichEnabled, resolveToolLimits, resolveToolset, type SystemConfig } from "@penguin/state";
import type { BuiltinTool } from "../environment/types.js";
import { ProcessManager } from "../processes/process-manager.js";
import { processRegistryDir } from "../processes/registry.js";
import type { SandboxPlacement } from "../processes/sandbox-command.js";
import {
  type AgentSeat,
  agentTreeToolFactories,
  LAUNCH_AGENT_TOOL_NAME,
  mayLaunch,
} from "../tools/agents/index.js";
import { type ExecutionSource, executionToolFactories } from "../tools/executions/index.js";
import { extendedToolFactories } from "../tools/extended/index.js";
import { type JournalAccess, journalToolFactories } from "../tools/journal/index.js";
import { type Mailbox, messagingToolFactories } from "../tools/messaging/index.js";
import { type MetricsSource, metricsToolFactories } from "../tools/metrics/index.js";
import { createBuiltinTools, selectToolsForModel } from "../tools/registry.js";
import { SUBAGENT_TOOL_NAMES, type SubagentManager, subagentToolFactories } from "../tools/subagent/index.js";
import type { AgentLogger } from "./agent-options.js";
import { type CustomToolRegistration, customTools } from "./custom-tools.js";

// The tools a session runs: the agent's toolset as its model can use it, made with the
// session's process manager and subagent manager, then the tools registered in code.

/**
 * "One process manager, one id namespace, one cap": exec_command sessions and run_command
 * jobs share the cap and buffer size of `tools.limits.jobs`.
 */
export function sessionProcesses(
  config: SystemConfig,
  where: { workspaceDir: string; scratchpadDir: string; sandbox?: SandboxPlacement },
): ProcessManager {
  const jobLimits = resolveToolLimits(config).jobs;
  return new ProcessManager({
    maxSessions: jobLimits.maxJobs,
    unreadBufferChars: jobLimits.bufferChars,
    // The login environment is captured in the workspace and kept in the scratchpad (private).
    loginEnvironment: {
      mode: config.exec.login_environment,
      cwd: where.workspaceDir,
      dir: where.scratchpadDir,
      // Spawning the shell would delay the session's first model request; its answer takes longer.
      start: "after-request",
    },
    // Commands and jobs are recorded in the scratchpad, so a resumed session finds them again.
    registryDir: processRegistryDir(where.scratchpadDir),
    ...(where.sandbox ? { sandbox: where.sandbox } : {}),
  });
}

export interface SessionToolsInput {
  agentId: string;
  config: SystemConfig;
  extraTools: readonly CustomToolRegistration[];
  logger: AgentLogger;
  modelHasVision: boolean;
  isSubagent: boolean;
  /** A top-level session's subagent manager (the subagent tools drive it). */
  subagents: SubagentManager | undefined;
  /** This agent's end of the session's inboxes (the messaging tools send and wait through it). */
  mailbox: Mailbox | undefined;
  /** The session's measurements, from its trace (read_metrics). */
  metrics: MetricsSource | undefined;
  /** The session's journal (resolve_execution_activity reads and records through it). */
  journal: JournalAccess | undefined;
  /** This agent's place in the session's agent tree (launch_agent / stop_agent); none: outside it. */
  seat: AgentSeat | undefined;
  /** The session's retained work (search_executions, read_execution, resume_execution). */
  executions: ExecutionSource | undefined;
}

/**
 * The tools of the toolset a session leaves out: a child's run_subagent / input_subagent ("their
 * contract caps their depth at 1"), and launch_agent outside a tree or at `child_agents.max_depth`.
 */
export function hiddenToolNames(isChild: boolean, launches: boolean): string[] {
  const launch = launches ? [] : [LAUNCH_AGENT_TOOL_NAME];
  return isChild ? [...SUBAGENT_TOOL_NAMES, ...launch] : launch;
}

export function sessionTools(input: SessionToolsInput): BuiltinTool[] {
  const { config, subagents } = input;
  // "Depth is capped at 1: a subagent cannot spawn another subagent": a child gets no subagent tools.
  const hidden = hiddenToolNames(input.isSubagent, input.seat !== undefined && mayLaunch(input.seat));
  const definitions = selectToolsForModel(resolveToolset(config), input.modelHasVision).filter(
    (definition) => !hidden.includes(definition.name),
  );
  const builtins = createBuiltinTools(definitions, {
    ...extendedToolFactories(resolveToolLimits(config), {
      readFileRich: readFileRichEnabled(config.tools),
    }),
    ...(subagents ? subagentToolFactories(subagents) : {}),
    ...messagingToolFactories(input.mailbox),
    ...metricsToolFactories(input.metrics),
    ...journalToolFactories(input.journal),
    ...agentTreeToolFactories(input.seat),
    ...executionToolFactories(input.executions),
  });
  for (const name of builtins.unknown) {
    input.logger.warn(
      `agent ${input.agentId}: no tool named "${name}" exists; it is left out of the toolset`,
    );
  }
  return [
    ...builtins.tools,
    ...customTools(
      input.extraTools,
      builtins.tools.map((t) => t.name),
    ),
  ];
}
