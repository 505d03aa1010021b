// @penguin/protocol: the one message format of Penguin (stream, trace and wire).
// Pure TypeScript with no Node APIs, so it runs in a browser too. Loading it builds no zod
// schema: each module's schemas are built when first asked for, through its accessor
// (`envelopeSchemas()`, `scriptSchemas()`, ...), which the parsers call; the schemas as
// constants are the `@penguin/protocol/schemas` entry.

export {
  agentFinished,
  agentLaunched,
  agentStopped,
  noticeDelivered,
  questionAnswered,
  questionAsked,
} from "./agent-event-builders.js";
export {
  type AgentFinishedPayload,
  type AgentLaunchedPayload,
  type AgentStoppedPayload,
  agentEventSchemas,
  type NoticeDeliveredPayload,
  type QuestionAnsweredPayload,
  type QuestionAskedPayload,
} from "./agent-events.js";
export {
  matchesComplete,
  type OpenPartialStream,
  PartialAggregator,
  type PartialKind,
  type StreamedPayload,
  streamKeyOf,
} from "./aggregate.js";
export {
  type AgentMessageEventFields,
  abortEvent,
  approvalDecision,
  assistantText,
  eventMsg,
  goalFinished,
  hookResult,
  isCompleteModelMessage,
  isEventMessage,
  isPartialMessage,
  isPayload,
  isSessionMeta,
  mcpConnectBegin,
  mcpConnectEnd,
  messageDelivered,
  messageSent,
  modelMsg,
  type Payload,
  partialText,
  partialThinking,
  partialToolCall,
  partialToolCallOutput,
  requestBegin,
  requestEnd,
  sessionMeta,
  subagentPointer,
  taskEnd,
  thinking,
  tokenUsage,
  toolCall,
  toolCallOutput,
  toolListReady,
  userText,
  warningEvent,
  withOrigin,
} from "./builders.js";
export { changesReverted, fileCheckpoint, taskChanges } from "./checkpoint-event-builders.js";
export {
  type ChangesRevertedPayload,
  type CommandChanges,
  type CommandFileChange,
  checkpointEventSchemas,
  type FileChange,
  type FileCheckpointPayload,
  type PathState,
  type RevertConflict,
  type TaskChangesPayload,
} from "./checkpoint-events.js";
export {
  APPROVAL_MODES,
  type ApprovalMode,
  commonSchemas,
  type Fidelity,
  type Permission,
  type Sender,
  STOP_REASONS,
  type StopReason,
  type TokenCounts,
} from "./common.js";
export {
  type AnyOmniMessage,
  type EventMsgEnvelope,
  envelopeSchemas,
  type ModelMsgEnvelope,
  type OmniMessage,
  type SessionMetaEnvelope,
} from "./envelope.js";
export { errorMessage, errorStack } from "./error-message.js";
export {
  type ApprovalDecisionPayload,
  type DecisionSource,
  type EventOf,
  type EventPayload,
  type EventType,
  eventSchemas,
  type GoalFinishedPayload,
  type GoalOutcome,
  type HookResultPayload,
  type LimitReachedPayload,
  type McpConnectEndPayload,
  type McpServerConnectResult,
  type MessageDeliveredPayload,
  type MessageSentPayload,
  type TokenUsagePayload,
  type ToolSpec,
  type WarningPayload,
} from "./events.js";
export { activityResolved, toolDispatched, toolEffect } from "./journal-event-builders.js";
export {
  type ActivityResolvedPayload,
  type FileEffect,
  journalEventSchemas,
  type ToolDispatchedPayload,
  type ToolEffectPayload,
} from "./journal-events.js";
export { METRICS_SUMMARIES, type MetricsRow, type MetricsSummary } from "./metrics.js";
export {
  COMPLETE_MODEL_TYPES,
  type CompleteModelPayload,
  type ImageUrlPayload,
  type InlineDataPayload,
  type ModelPayload,
  modelMessageSchemas,
  PARTIAL_TYPES,
  type PartialEventType,
  type PartialPayload,
  type PartialTextPayload,
  type PartialThinkingPayload,
  type PartialToolCallOutputPayload,
  type PartialToolCallPayload,
  type TextPayload,
  type ThinkingPayload,
  type ToolCallOutputPayload,
  type ToolCallPayload,
} from "./model-messages.js";
// Also how other packages build their own schemas on first use.
export { onFirstUse } from "./on-first-use.js";
export {
  type EnvelopeError,
  envelopeError,
  type ParseResult,
  parseEnvelope,
  parseEnvelopeLine,
} from "./parse.js";
export { planProposed, planUpdated } from "./plan-event-builders.js";
export {
  PLAN_STEP_STATUSES,
  type PlanProposedPayload,
  type PlanStep,
  type PlanStepStatus,
  type PlanUpdatedPayload,
  planEventSchemas,
} from "./plan-events.js";
export {
  type ModelScript,
  type ScriptToolCall,
  type ScriptTurn,
  type ScriptUsage,
  scriptSchemas,
} from "./script.js";
export { type SessionMetaPayload, sessionMetaSchemas } from "./session-meta.js";
export { splitIntoPartials } from "./split.js";
export { CALL_DESCRIPTION_KEYS, readStreamingArgument, type StreamingString } from "./streaming-arguments.js";
export {
  addTokenCounts,
  ESTIMATED_CHARS_PER_TOKEN,
  emptyTokenCounts,
  estimateTokensOfText,
} from "./tokens.js";
export { PROTOCOL_VERSION } from "./version.js";
