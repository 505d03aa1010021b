// @penguin/protocol/schemas: the zod schemas of the envelope, as constants, for clients that
// compose them into their own (a server's request schemas) or read their shapes. Loading this
// entry builds them all; the main entry builds them only when a parse needs them
// (on-first-use.ts), so a program that only builds and writes envelopes never pays for them.

import { agentEventSchemas } from "./agent-events.js";
import { checkpointEventSchemas } from "./checkpoint-events.js";
import { commonSchemas } from "./common.js";
import { envelopeSchemas } from "./envelope.js";
import { eventSchemas } from "./events.js";
import { journalEventSchemas } from "./journal-events.js";
import { modelMessageSchemas } from "./model-messages.js";
import { planEventSchemas } from "./plan-events.js";
import { scriptSchemas } from "./script.js";
import { sessionMetaSchemas } from "./session-meta.js";

export const {
  AgentFinishedPayloadSchema,
  AgentLaunchedPayloadSchema,
  AgentStoppedPayloadSchema,
  NoticeDeliveredPayloadSchema,
  QuestionAnsweredPayloadSchema,
  QuestionAskedPayloadSchema,
} = agentEventSchemas();
export const {
  ChangesRevertedPayloadSchema,
  CommandChangesSchema,
  CommandFileChangeSchema,
  FileChangeSchema,
  FileCheckpointPayloadSchema,
  PathStateSchema,
  RevertConflictSchema,
  TaskChangesPayloadSchema,
} = checkpointEventSchemas();
export const {
  ApprovalModeSchema,
  FidelitySchema,
  PermissionSchema,
  SenderSchema,
  StopReasonSchema,
  TokenCountsSchema,
} = commonSchemas();
export const { OmniMessageSchema } = envelopeSchemas();
export const {
  ApprovalDecisionPayloadSchema,
  DecisionSourceSchema,
  EventPayloadSchema,
  GoalFinishedPayloadSchema,
  GoalOutcomeSchema,
  HookResultPayloadSchema,
  LimitReachedPayloadSchema,
  McpConnectEndPayloadSchema,
  McpServerConnectResultSchema,
  MessageDeliveredPayloadSchema,
  MessageSentPayloadSchema,
  TokenUsagePayloadSchema,
  ToolSpecSchema,
  WarningPayloadSchema,
} = eventSchemas();
export const {
  ActivityResolvedPayloadSchema,
  FileEffectSchema,
  ToolDispatchedPayloadSchema,
  ToolEffectPayloadSchema,
} = journalEventSchemas();
export const {
  CompleteModelPayloadSchema,
  ImageUrlPayloadSchema,
  InlineDataPayloadSchema,
  ModelPayloadSchema,
  PartialEventTypeSchema,
  PartialPayloadSchema,
  PartialTextPayloadSchema,
  PartialThinkingPayloadSchema,
  PartialToolCallOutputPayloadSchema,
  PartialToolCallPayloadSchema,
  TextPayloadSchema,
  ThinkingPayloadSchema,
  ToolCallOutputPayloadSchema,
  ToolCallPayloadSchema,
} = modelMessageSchemas();
export const { PlanProposedPayloadSchema, PlanStepSchema, PlanStepStatusSchema, PlanUpdatedPayloadSchema } =
  planEventSchemas();
export const { ModelScriptSchema, ScriptToolCallSchema, ScriptTurnSchema, ScriptUsageSchema } =
  scriptSchemas();
export const { SessionMetaPayloadSchema } = sessionMetaSchemas();
