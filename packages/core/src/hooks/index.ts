// Hooks around tool calls: the session's set, the runner that decides and traces, one process.

export {
  type ActiveHook,
  describeUnknownHookTools,
  type HookPhase,
  HookSet,
  type HookWithUnknownTools,
  hooksWithUnknownTools,
  type ToolNameCheck,
  WORKSPACE_HOOK_PREFIX,
  type WorkspaceHooksLoad,
} from "./hook-set.js";
export {
  HOOK_KILL_GRACE_MS,
  type HookProcessOptions,
  type HookProcessResult,
  runHookProcess,
} from "./run-hook.js";
export {
  type AfterHooksResult,
  type BeforeHooksVerdict,
  HOOK_DENY_EXIT_CODE,
  type HookRunContext,
  HookRunner,
} from "./runner.js";
