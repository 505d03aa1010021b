// @penguin/core: the agent engine, the tool environment, built-in tools, model adapters,
// approval and the Agent/Session SDK. What this file exports is what the package promises.

// For custom tools: the delta a tool yields for each piece of its output.
export { partialToolCallOutput } from "@penguin/protocol";
export { modelVisiblePath } from "@penguin/state";
// Plan mode and the session's plan (`session.plan`, `session.approvePlan`).
export type { SessionPlan } from "@penguin/trace";
export type {
  ApprovalContext,
  ApprovalPolicy,
  ApprovalRequest,
  ApproveFn,
  Approver,
  PolicyDecision,
} from "./approval/approver.js";
export { approverOf, isApprovalPolicy, isApprover } from "./approval/approver-of.js";
// Approval.
export { type ApprovalOutcome, decideApproval, NO_APPROVER_REASON } from "./approval/gate.js";
export { checkCommand, checkToolCall, commandTextOf, type GuardrailHit } from "./approval/guardrail.js";
export {
  type AskFn,
  allowAll,
  alwaysAsk,
  denyAll,
  type HumanAnswer,
  type NoTerminalAnswer,
  PLAN_MODE_DENIAL,
  planMode,
  policyForMode,
  readOnly,
} from "./approval/policies.js";
export {
  ruleCoversCall,
  type SessionRule,
  SessionRules,
  suggestedPrefix,
  suggestedPrefixOf,
} from "./approval/session-rules.js";
export {
  type CommandPart,
  type ShellWord,
  type SplitResult,
  splitShellCommand,
} from "./approval/shell-split.js";
// A crash's uncertain calls: what `session.uncertainSteps()` lists and `session.resolve()` takes and answers.
export {
  CHECKPOINT_FILE_LIMIT,
  CHECKPOINT_STORE_LIMIT,
  // The checkpoint book a session's Environment writes into (benchmarks build one directly).
  checkpointBookFor,
  openSessionChanges,
  type SessionChanges,
} from "./checkpoints/index.js";
// Engine limits and markers that front ends show or configure.
export { clampMaxTokens, type ModelPrices, type SessionBudget } from "./engine/limits.js";
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./engine/retry.js";
// The agent's current directory and what it loaded there (change_directory, use_skill).
export { type AgentPlace, CurrentDirectory, type RoundCall } from "./environment/current-directory.js";
// Environment and tools.
export { Environment, type EnvironmentOptions, type ExecuteToolOptions } from "./environment/environment.js";
// Where the file tools read and write text: the disk, or an editor's buffers (`penguin acp`).
export { type FileAccess, FileAccessError, type FileAccessOptions } from "./environment/file-access.js";
// Markers the Environment writes into tool outputs (front ends and tests recognise them).
export {
  DENIED_BY_POLICY_TEXT,
  DENIED_BY_USER_TEXT,
  DENIED_NO_TERMINAL_TEXT,
  INTERRUPTED_MARKER,
  NO_OUTPUT_MARKER,
  REDACTED_MARKER,
  TOOL_ERROR_PREFIX,
  timeoutMarker,
  truncationMarker,
} from "./environment/markers.js";
export type {
  BuiltinTool,
  DescribeImageFn,
  ToolExecutionContext,
  ToolFactory,
  ToolResult,
} from "./environment/types.js";
// MCP servers: how their tools are named (front ends tell MCP tools apart) and what permission they get.
// Goal mode: `session.run(objective, { goal: { budget } })`.
export {
  GOAL_FILE_NAME,
  type GoalOptions,
  type GoalStatus,
  MAX_GOAL_ROUNDS,
  readGoalStatus,
} from "./goal/index.js";
// Hooks around tool calls.
export {
  type ActiveHook,
  type BeforeHooksVerdict,
  HOOK_DENY_EXIT_CODE,
  type HookPhase,
  HookRunner,
  HookSet,
  runHookProcess,
  WORKSPACE_HOOK_PREFIX,
} from "./hooks/index.js";
export { MCP_TOOL_PREFIX, mcpSecretValues, mcpToolName, mcpToolPermission } from "./mcp/index.js";
// Models.
export {
  CassetteError,
  createAnthropicMessagesModel,
  createModelAdapter,
  createOpenAIChatModel,
  createOpenAIResponsesModel,
  createRecordingModel,
  createReplayModel,
  createToolCallIdRegistry,
  FetchHeaders,
  loadCassette,
  type ModelAdapterOptions,
  type ModelAdapterResult,
  PROVIDER_PROFILES,
  type ProviderProfile,
  parseCassette,
  type RecordingModelOptions,
  type ReplayModelOptions,
  type WireProtocol,
} from "./models/index.js";
export type { ModelAdapter, ModelInfo, ModelOutcome, ModelRequest, ThinkingLevel } from "./models/types.js";
// Named agents a session knows (`.agents/agents/<name>.md`).
export {
  AgentCatalog,
  loadSessionAgents,
  type NamedAgentsAdded,
  type NamedAgentWarning,
  type SessionAgents,
  type WorkspaceAgentsLoad,
} from "./named-agents/index.js";
// Notices: `session.notify`, the event handlers that take them, and the wake turns they start.
export {
  HandlerCatalog,
  NOTICE_DATA_MAX_BYTES,
  NOTICE_SUMMARY_MAX_BYTES,
  type NoticeInput,
  type NoticeRefusal,
  type NotifyOutcome,
  type PendingNoticeInfo,
  RESERVED_NOTICE_PREFIXES,
} from "./notices/index.js";
// Skills a session knows.
// The process registry of a session's scratchpad: what a crash left running, for the front ends.
export {
  describeRetainedProcess,
  processesLeftRunning,
  type RetainedProcess,
  type RetainedProcessState,
  retainedProcesses,
} from "./processes/retained-processes.js";
// One process at a time has a session open: others are refused, naming it.
export { SessionHeldError, type SessionHolderInfo, sessionHolder } from "./processes/session-holder.js";
// SDK.
export { Agent, createAgent } from "./sdk/agent.js";
export type {
  AgentLogger,
  CreateAgentOptions,
  CreateSessionOptions,
  ResumeSessionOptions,
} from "./sdk/agent-options.js";
export type { CustomToolRegistration } from "./sdk/custom-tools.js";
export { INPUT_IMAGE_TYPES, type RunInput } from "./sdk/input.js";
export { type CompactOptions, type RunOptions, Session } from "./sdk/session.js";
export {
  type ChangeSetRef,
  type ChangeSummary,
  type ChangesOptions,
  RevertBusyError,
  type RevertOptions,
  type RevertOutcome,
} from "./sdk/session-changes.js";
// Retained work: `session.executions(filter)` and `session.execution(id, part, page)`.
export type {
  Execution,
  ExecutionFilter,
  ExecutionItem,
  ExecutionList,
  ExecutionPart,
  ExecutionRead,
  ExecutionState,
} from "./sdk/session-executions.js";
export { newSessionId } from "./sdk/session-id.js";
export { AGENT_FINISHED, JOB_EXITED } from "./sdk/session-notices.js";
export { PLAN_MODE_INSTRUCTION, PLAN_MODE_TAG } from "./sdk/session-plan.js";
export type { ResolveOutcome, ResolveStepInput, UncertainStep } from "./sdk/session-recovery.js";
export type { WakeListener, WakeRunOptions, WakeTurn } from "./sdk/session-wake.js";
export { SetupError } from "./sdk/setup-error.js";
export { loadSessionSkills, SkillCatalog } from "./skills/index.js";
export {
  type CommandSessionInfo,
  createExecCommandTool,
  createInputCommandTool,
  DEFAULT_UNREAD_BUFFER_CHARS,
  MAX_COMMAND_SESSIONS,
  NON_INTERACTIVE_ENV,
  nonInteractiveEnv,
  ProcessManager,
  type ProcessManagerOptions,
  type StartResult,
} from "./tools/command/index.js";
export { diskFileAccess } from "./tools/files/disk-file-access.js";
export {
  createDescribeImageTool,
  createEditFileTool,
  createReadFileTool,
  createReadImageTool,
  createWriteFileTool,
} from "./tools/index.js";
// Questions of the root agent to the user (`ask`): what a front end's answerer receives.
// An uncertain call after a crash: what Penguin checks itself (each file's hash now against the journal's).
export {
  type EvidenceOptions,
  type EvidenceVerdict,
  type FileCheck,
  type FileState,
  gatherEvidence,
  type JournalAccess,
  type JournalView,
  type RecoveryView,
  type ResolutionFields,
  recoveryView,
  type StepEvidence,
} from "./tools/journal/index.js";
export { NOBODY_ANSWERS_MESSAGE, type OnAsk, type UserQuestion } from "./tools/messaging/index.js";
export { formatMetricsRows } from "./tools/metrics/index.js";
export { type BuiltinToolset, createBuiltinTools, selectToolsForModel } from "./tools/registry.js";
// Subagents: what front ends show of a session's children (`session.subagents`) and the limits.
export {
  DEFAULT_POLL_YIELD_MS as DEFAULT_SUBAGENT_POLL_YIELD_MS,
  DEFAULT_RUN_YIELD_MS as DEFAULT_SUBAGENT_YIELD_MS,
  MAX_SUBAGENT_SESSIONS,
  SUBAGENT_TOOL_NAMES,
  type SubagentInfo,
  type SubagentStatus,
} from "./tools/subagent/index.js";
