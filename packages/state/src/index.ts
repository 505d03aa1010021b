export const PACKAGE_NAME = "@penguin/state";

// The approval modes are the protocol's (the web app reads them there); state's surface keeps them.
export { APPROVAL_MODES, type ApprovalMode } from "@penguin/protocol";
// Agents.
export {
  type Agent,
  type AgentLoadResult,
  type AgentResult,
  createAgent,
  ensureDefaultAgent,
  listAgents,
  loadAgent,
  type SyncToolsResult,
  syncAgentTools,
} from "./agents.js";
// compaction in system_config.yaml.
export {
  COMPACTION_MODES,
  type CompactionMode,
  type CompactionSettings,
  compactionSchemas,
  DEFAULT_COMPACTION_MAX_CONTEXT_LENGTH,
  DEFAULT_COMPACTION_MAX_SESSION_TURNS,
  DEFAULT_COMPACTION_MODE,
  DEFAULT_COMPACTION_PROMPT,
} from "./compaction-config.js";
// Defaults made at build time from the schemas.
export { type ConfigDefaultName, type ConfigDefaults, configDefault } from "./config-defaults.js";
// Config errors, shared by every config file.
export {
  type ConfigError,
  type ConfigResult,
  formatConfigError,
  formatConfigErrors,
} from "./config-errors.js";
// Event handlers: `.agents/events/<name>.md`, which notices a session takes and how.
export {
  AGENT_EVENT_HANDLERS_FOLDER,
  agentEventHandlersDir,
  discoverEventHandlers,
  EVENT_HANDLER_FILE_MAX_BYTES,
  type EventHandler,
  type EventHandlerDiscovery,
  type EventHandlerParse,
  type EventHandlerProblem,
  type EventHandlerSource,
  MAX_EVENT_HANDLER_FILES,
  NOTICE_DELIVERIES,
  NOTICE_TYPE_PATTERN,
  NOTICE_TYPE_WILDCARD,
  type NoticeDelivery,
  noticeTypeMatches,
  parseEventHandlerFile,
  WORKSPACE_EVENT_HANDLERS_DIR,
  workspaceEventHandlersDir,
} from "./event-handlers.js";
// exec in system_config.yaml.
export {
  DEFAULT_LOGIN_ENVIRONMENT_MODE,
  type ExecSettings,
  execSettingsSchemas,
  LOGIN_ENVIRONMENT_MODES,
  type LoginEnvironmentMode,
} from "./exec-config.js";
export {
  builtinExecutionProfiles,
  chooseExecutionProfile,
  DEFAULT_EXECUTION_PROFILE,
  EXECUTION_PROFILE_KINDS,
  type ExecutionLimits,
  type ExecutionProfile,
  type ExecutionProfileChoice,
  type ExecutionProfileKind,
  execProfileSchemas,
  executionProfilesOf,
  isFullHostAccess,
  NATIVE_PROFILE,
  SANDBOX_PROFILE,
} from "./exec-profiles.js";
// The extended toolset: definitions, presets, limits and the write guard.
export {
  applyRichRead,
  applyWriteGuard,
  DEFAULT_TOOL_PRESET,
  defaultToolLimits,
  EXPECTED_SHA256_PROPERTY,
  EXTENDED_TOOL_DEFINITIONS,
  EXTENDED_TOOL_NAMES,
  HASH_GUARDED_TOOLS,
  READ_FILE_RICH_NOTE,
  readFileRichEnabled,
  TOOL_PRESETS,
  type ToolLimits,
  type ToolLimitsInput,
  type ToolPreset,
  toolLimitsSchemas,
  writeGuardEnabled,
} from "./extended-tool-definitions.js";
export {
  commandWithoutWrappers,
  DEFAULT_GUARDRAIL_RULES,
  type GuardrailRule,
  guardrailSchemas,
  matchGuardrail,
  mightMatchGuardrail,
} from "./guardrail.js";
// Hooks around tool calls.
export {
  DEFAULT_HOOK_MAX_OUTPUT_CHARS,
  DEFAULT_HOOK_ON_ERROR,
  DEFAULT_HOOK_TIMEOUT_MS,
  defaultHooksSection,
  type HookEntry,
  type HookEntryInput,
  type HooksSection,
  hookSchemas,
  loadWorkspaceHooks,
  parseWorkspaceHooks,
  WORKSPACE_HOOKS_FILE,
  type WorkspaceHooksFile,
} from "./hooks-config.js";
// The job tools of the extended toolset (run_command, list_jobs, read_job_output, wait_job, signal_job).
export {
  DEFAULT_JOBS_BUFFER_CHARS,
  DEFAULT_JOBS_MAX_JOBS,
  DEFAULT_SIGNAL_JOB_GRACE_MS,
  JOB_TOOL_DEFINITIONS,
  PURPOSE_PROPERTY,
} from "./job-tool-definitions.js";
// Logging.
export { type CreateLoggerOptions, createLogger, REDACTED, redactSecrets } from "./logger.js";
// Named agents (`.agents/agents/<name>.md`).
export {
  AGENT_NAMED_AGENTS_FOLDER,
  agentNamedAgentsDir,
  discoverNamedAgents,
  MAX_NAMED_AGENT_FILES,
  NAMED_AGENT_DESCRIPTION_MAX_CHARS,
  NAMED_AGENT_FILE_EXTENSION,
  NAMED_AGENT_FILE_MAX_BYTES,
  NAMED_AGENT_NAME_PATTERN,
  type NamedAgent,
  type NamedAgentDiscovery,
  type NamedAgentParse,
  type NamedAgentProblem,
  type NamedAgentSource,
  parseNamedAgentFile,
  WORKSPACE_NAMED_AGENTS_DIR,
  workspaceNamedAgentsDir,
} from "./named-agents.js";
// Data root and the layout under it.
export {
  agentDir,
  agentsDir,
  DATA_ROOT_ENV,
  type DataPaths,
  DEFAULT_AGENT_ID,
  DEFAULT_PROJECT_ID,
  dataPaths,
  isValidAgentId,
  isValidProjectId,
  isValidSessionId,
  logsDir,
  modelVisiblePath,
  PROJECT_CONFIG_FILE,
  projectConfigFile,
  resolveDataRoot,
  SYSTEM_CONFIG_FILE,
  scratchpadDir,
  scratchpadRoot,
  systemConfigFile,
  TRUNCATED_OUTPUT_DIR,
  traceDayDir,
  traceFile,
  tracesDir,
  truncatedOutputDir,
} from "./paths.js";
// Private files (0600 files, 0700 folders, atomic writes).
export {
  ensurePrivateDir,
  PRIVATE_DIR_MODE,
  PRIVATE_FILE_MODE,
  type WritePrivateFileOptions,
  writePrivateFile,
} from "./private-files.js";
// Project config: models, keys, default and vision model, guardrail.
export {
  addModel,
  CREDENTIAL_ENV_NAME,
  type Credentials,
  credentialEnvValues,
  defaultProjectConfig,
  findModel,
  formatModelRef,
  loadProjectConfig,
  MIN_SECRET_LENGTH,
  type ModelEntry,
  type ModelEntryInput,
  type ModelPrices,
  type ModelRef,
  PROVIDER_APIS,
  type ProjectConfig,
  type ProjectConfigInput,
  type ProjectConfigUpdate,
  type ProviderApi,
  parseModelRef,
  projectConfigSchemas,
  providerApi,
  providerEnvPrefix,
  REPLAY_PROVIDER,
  removeModel,
  resolveCredentials,
  saveProjectConfig,
  secretValues,
  setDefaultModel,
  setVisionModel,
} from "./project-config.js";
// A directory's rules (.agents/rules/*.md).
export {
  formatRules,
  RULE_FILE_MAX_CHARS,
  RULES_DIR,
  RULES_TOTAL_MAX_CHARS,
  type RuleFile,
  readRules,
} from "./rules.js";
// Skills (SKILL.md folders).
export {
  AGENT_SKILLS_FOLDER,
  agentSkillsDir,
  discoverSkills,
  MAX_SKILL_FOLDERS,
  parseSkillFile,
  readSkillFile,
  SKILL_DESCRIPTION_MAX_CHARS,
  SKILL_FILE,
  SKILL_FILE_MAX_BYTES,
  SKILL_NAME_PATTERN,
  type SkillDiscovery,
  type SkillFile,
  type SkillInfo,
  type SkillParse,
  type SkillSource,
  WORKSPACE_SKILLS_DIR,
  workspaceSkillsDir,
} from "./skills.js";
// system_config.yaml.
export {
  type Budget,
  DEFAULT_MAX_TURNS,
  DEFAULT_MCP_DEFER_ABOVE_TOOLS,
  DEFAULT_MCP_WARN_TOOL_BYTES,
  DEFAULT_MCP_WARN_TOOL_COUNT,
  DEFAULT_MODEL_MAX_TOKENS,
  DEFAULT_MODEL_TIMEOUT_MS,
  DEFAULT_THINKING_LEVEL,
  defaultSystemConfig,
  loadSystemConfig,
  MCP_DEFER_LOADING_MODES,
  type McpServer,
  type McpServerInput,
  type McpToolBudget,
  parseSystemConfig,
  renderDefaultsYaml,
  resolveMcpToolBudget,
  resolveToolLimits,
  resolveToolset,
  type SystemConfig,
  type SystemConfigInput,
  systemConfigSchemas,
  systemPromptTemplate,
  THINKING_LEVELS,
  type ThinkingLevel,
} from "./system-config.js";
// The system prompt.
export {
  AGENTS_MD_FILE,
  AGENTS_MD_MAX_CHARS,
  type BuildSystemPromptOptions,
  buildSystemPrompt,
  DEFAULT_SYSTEM_PROMPT,
  expandSystemPrompt,
  namedAgentsBlock,
  PROMPT_NAMED_AGENT_DESCRIPTION_MAX_CHARS,
  PROMPT_NAMED_AGENTS_MAX,
  type PromptNamedAgent,
  type PromptSkill,
  readAgentsMd,
  type SystemPromptValues,
  skillsBlock,
  toolsBlock,
} from "./system-prompt.js";
// child_agents and notices in system_config.yaml.
export {
  type ChildAgentsSettings,
  DEFAULT_CHILD_AGENT_MAX_DEPTH,
  DEFAULT_CHILD_AGENT_MAX_RUNNING,
  DEFAULT_CHILD_AGENT_MAX_SESSIONS,
  DEFAULT_MAX_PENDING_NOTICES,
  DEFAULT_NOTICE_WAKES_PER_HOUR,
  type NoticesSettings,
  teamSchemas,
} from "./team-config.js";
// Tool definitions and the default toolset.
export {
  applyCallDescription,
  BUILTIN_TOOL_NAMES,
  CALL_DESCRIPTION_PROPERTY,
  DEFAULT_MAX_OUTPUT_LENGTH,
  DEFAULT_TOOL_DEFINITIONS,
  DEFAULT_TOOL_TIMEOUT_MS,
  defaultToolDefinitions,
  selectToolsForModel,
  type ToolDefinitionConfig,
  type ToolDefinitionConfigInput,
  type ToolParameters,
  takesCallDescription,
  toolDefinitionSchemas,
} from "./tool-definitions.js";
export {
  adoptDefaultTools,
  BUILTIN_TOOL_REGISTRY,
  missingDefaultTools,
  presetToolDefinitions,
  type RegisteredTool,
} from "./tool-registry.js";
export {
  AGENT_TREE_TOOL_DEFINITIONS,
  LAUNCH_AGENT_DEFINITION,
  MAX_AGENT_INSTRUCTIONS_BYTES,
  MAX_FINISHED_ANSWER_CHARS,
  STOP_AGENT_DEFINITION,
} from "./tools/agents.js";
// Each built-in tool's definition and the numbers its description states (core implements them
// with these constants), and the one registry of all built-in tools the config defaults come from.
export {
  COMMAND_TOOL_DEFINITIONS,
  DEFAULT_COMMAND_POLL_YIELD_MS,
  DEFAULT_EXEC_YIELD_MS,
  DEFAULT_UNREAD_BUFFER_CHARS,
  DEFAULT_WRITE_YIELD_MS,
  EXEC_COMMAND_DEFINITION,
  EXEC_COMMAND_TIMEOUT_MS,
  INPUT_COMMAND_DEFINITION,
  INPUT_COMMAND_TIMEOUT_MS,
  MAX_COMMAND_SESSIONS,
  MIN_EXEC_YIELD_MS,
} from "./tools/command.js";
export {
  DEFAULT_SEARCH_EXECUTIONS_ROWS,
  EXECUTION_TOOL_DEFINITIONS,
  MAX_SEARCH_EXECUTIONS_ROWS,
  READ_EXECUTION_DEFINITION,
  RESUME_EXECUTION_DEFINITION,
  SEARCH_EXECUTIONS_DEFINITION,
} from "./tools/executions.js";
export {
  EDIT_FILE_DEFINITION,
  FILE_TOOL_TIMEOUT_MS,
  READ_FILE_DEFAULT_LIMIT,
  READ_FILE_DEFAULT_OFFSET,
  READ_FILE_DEFINITION,
  WRITE_FILE_DEFINITION,
} from "./tools/file-tools.js";
export {
  DESCRIBE_IMAGE_DEFINITION,
  DESCRIBE_IMAGE_TIMEOUT_MS,
  IMAGE_MAX_BYTES,
  READ_IMAGE_DEFINITION,
  READ_IMAGE_TIMEOUT_MS,
} from "./tools/images.js";
export {
  JOURNAL_TOOL_DEFINITIONS,
  RESOLVE_EXECUTION_ACTIVITY_DEFINITION,
  RESOLVE_EXECUTION_ACTIVITY_TOOL_NAME,
} from "./tools/journal.js";
export {
  ASK_DEFINITION,
  DEFAULT_ASK_TIMEOUT_MS,
  DEFAULT_WAIT_MESSAGES_TIMEOUT_MS,
  MAX_ASK_TIMEOUT_MS,
  MAX_INBOX_BYTES,
  MAX_INBOX_MESSAGES,
  MAX_WAIT_MESSAGES_TIMEOUT_MS,
  MESSAGING_TOOL_DEFINITIONS,
  MESSAGING_TOOL_NAMES,
  QUESTION_ID_PREFIX,
  ROOT_AGENT_RUN_ID,
  SEND_MESSAGE_DEFINITION,
  USER_ANSWERER,
  WAIT_MESSAGES_DEFINITION,
} from "./tools/messaging.js";
export {
  DEFAULT_READ_METRICS_ROWS,
  MAX_READ_METRICS_ROWS,
  METRICS_TOOL_DEFINITIONS,
  READ_METRICS_DEFINITION,
} from "./tools/metrics.js";
export {
  MAX_PLAN_NOTE_CHARS,
  MAX_PLAN_STEP_CHARS,
  MAX_PLAN_STEPS,
  PLAN_TOOL_DEFINITIONS,
  UPDATE_PLAN_DEFINITION,
} from "./tools/plan.js";
export {
  DEFAULT_FOLLOW_UP_YIELD_MS,
  DEFAULT_RUN_YIELD_MS,
  DEFAULT_SUBAGENT_POLL_YIELD_MS,
  INPUT_SUBAGENT_DEFINITION,
  RUN_SUBAGENT_DEFINITION,
  SUBAGENT_TOOL_TIMEOUT_MS,
} from "./tools/subagent.js";
// Config files' parsed (and, for a named code, checked) values remembered beside them.
export { rememberCheckedConfigs } from "./yaml-memo.js";
