// The subagent tools (run_subagent, input_subagent) and the manager of a parent's child sessions.
import type { ToolFactory } from "../../environment/types.js";
import { createInputSubagentTool } from "./input-subagent.js";
import type { SubagentManager } from "./manager.js";
import { createRunSubagentTool } from "./run-subagent.js";

export type { PendingApproval } from "./approval-watch.js";
export {
  type InputSubagentArgs,
  parseInputSubagentArgs,
  parseRunSubagentArgs,
  type RunSubagentArgs,
} from "./arguments.js";
export { INTERRUPT_SETTLE_MS } from "./follow.js";
export { createInputSubagentTool } from "./input-subagent.js";
export {
  DEFAULT_FOLLOW_UP_YIELD_MS,
  DEFAULT_POLL_YIELD_MS,
  DEFAULT_RUN_YIELD_MS,
  MAX_DETACHED_BACKLOG_MESSAGES,
  MAX_SUBAGENT_SESSIONS,
  SUBAGENT_ID_PREFIX,
} from "./limits.js";
export {
  type SpawnResult,
  type StopTreeResult,
  SubagentManager,
  type SubagentManagerOptions,
  type SubagentPointer,
} from "./manager.js";
export { type RestoredChildState, restoredChildState } from "./restored.js";
export { createRunSubagentTool, DEPTH_CAP_MESSAGE } from "./run-subagent.js";
export { Subagent } from "./subagent.js";
export { descendsFrom, finishedMessageText, reportEnd, subtreeDeepestFirst } from "./tree.js";
export type {
  ChildFinished,
  ChildPlacement,
  ChildRunOptions,
  ChildSession,
  ChildSessionRequest,
  SubagentInfo,
  SubagentLauncher,
  SubagentStatus,
  TaskOutcome,
  UsageSink,
} from "./types.js";

/** The names of the subagent tools; a child session's toolset leaves them out (depth cap 1). */
export const SUBAGENT_TOOL_NAMES: readonly string[] = ["run_subagent", "input_subagent"];

/**
 * Factories of the subagent tools bound to a parent session's manager, for
 * `createBuiltinTools(definitions, extra)`.
 */
export function subagentToolFactories(manager: SubagentManager): Record<string, ToolFactory> {
  return {
    run_subagent: (definition) => createRunSubagentTool(definition, manager),
    input_subagent: (definition) => createInputSubagentTool(definition, manager),
  };
}
