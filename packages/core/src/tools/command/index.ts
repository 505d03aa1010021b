// The command-session tools (exec_command, input_command) and the process manager behind them.

export { NON_INTERACTIVE_ENV, nonInteractiveEnv } from "../../processes/non-interactive-env.js";
export { type LineWindow, OutputLog } from "../../processes/output-log.js";
export {
  type FindOnPathOptions,
  findOnPath,
  interruptPlan,
  isWslLauncher,
  type Platform,
  processGroupSpawnOptions,
  type ResolveShellOptions,
  resolveShell,
  SHELL_OVERRIDE_ENV,
  type ShellResolution,
  type SignalPlan,
  shellArgs,
  terminatePlan,
} from "../../processes/platform.js";
export {
  COMMAND_ID_PREFIX,
  MAX_COMMAND_SESSIONS,
  ProcessManager,
  type ProcessManagerOptions,
  type StartResult,
} from "../../processes/process-manager.js";
export {
  type CommandExit,
  type CommandSession,
  type CommandSessionInfo,
  EXIT_DRAIN_GRACE_MS,
  exitNote,
  type SessionOrigin,
  type SessionStatus,
  TERMINATE_GRACE_MS,
} from "../../processes/session.js";
export {
  DEFAULT_UNREAD_BUFFER_CHARS,
  droppedOutputMarker,
  UnreadBuffer,
} from "../../processes/unread-buffer.js";
export {
  CTRL_C,
  CTRL_D,
  clampYieldTime,
  DEFAULT_EXEC_YIELD_MS,
  DEFAULT_POLL_YIELD_MS,
  DEFAULT_WRITE_YIELD_MS,
  isUserInterrupt,
  MIN_EXEC_YIELD_MS,
  YIELD_TIMEOUT_MARGIN_MS,
} from "./call-arguments.js";
export { createExecCommandTool } from "./exec-command.js";
export { createInputCommandTool } from "./input-command.js";
