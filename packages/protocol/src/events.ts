import { z } from "zod";
import { agentEventSchemas } from "./agent-events.js";
import { checkpointEventSchemas } from "./checkpoint-events.js";
import { commonSchemas } from "./common.js";
import { fieldSchemas } from "./fields.js";
import { journalEventSchemas } from "./journal-events.js";
import { onFirstUse } from "./on-first-use.js";
import { planEventSchemas } from "./plan-events.js";

// Events: everything that happens in a session besides model messages.

/** The schemas of this module, built on the first call (on-first-use.ts). */
export const eventSchemas = onFirstUse(() => {
  const {
    AgentFinishedPayloadSchema,
    AgentLaunchedPayloadSchema,
    AgentStoppedPayloadSchema,
    NoticeDeliveredPayloadSchema,
    QuestionAnsweredPayloadSchema,
    QuestionAskedPayloadSchema,
  } = agentEventSchemas();
  const { ChangesRevertedPayloadSchema, FileCheckpointPayloadSchema, TaskChangesPayloadSchema } =
    checkpointEventSchemas();
  const { PermissionSchema, StopReasonSchema, TokenCountsSchema } = commonSchemas();
  const {
    anyString,
    anyValue,
    nonEmptyString,
    nonNegativeInt,
    optionalNonNegativeInt,
    optionalNonNegativeNumber,
    optionalPositiveInt,
    optionalString,
  } = fieldSchemas();
  const { ActivityResolvedPayloadSchema, ToolDispatchedPayloadSchema, ToolEffectPayloadSchema } =
    journalEventSchemas();
  const { PlanProposedPayloadSchema, PlanUpdatedPayloadSchema } = planEventSchemas();

  /** A tool as the model is offered it; front ends pick a call's display form from `parameters`. */
  const ToolSpecSchema = z.looseObject({
    name: anyString,
    description: anyString,
    /** JSON Schema of the arguments, as sent to the model. */
    parameters: z.record(anyString, anyValue),
    permission: PermissionSchema,
  });

  const ToolListReadyPayloadSchema = z.looseObject({
    type: z.literal("tool_list_ready"),
    tools: z.array(ToolSpecSchema),
  });

  /** Detail of a failed or retried request. */
  const retryDetail = {
    error_message: optionalString,
    /** 1-based attempt number. */
    attempt: optionalPositiveInt,
    /** Wait before the next attempt, when one follows. */
    retry_in_ms: optionalNonNegativeInt,
  };

  const RequestBeginPayloadSchema = z.looseObject({
    type: z.literal("request_begin"),
    attempt: optionalPositiveInt,
  });

  const RequestEndPayloadSchema = z.looseObject({
    type: z.literal("request_end"),
    status: StopReasonSchema,
    ...retryDetail,
  });

  /**
   * What decided an approval: a mode, a session rule, the guardrail, a hook, a callback, a human,
   * or `no_terminal`: the call needed a human and there was no terminal to ask, so it was denied.
   */
  const DecisionSourceSchema = z.looseObject({
    kind: z.enum([
      "mode",
      "session_rule",
      "guardrail",
      "hook",
      "callback",
      "human",
      "no_terminal",
      "default",
    ]),
    /** The mode, rule or hook name. */
    name: optionalString,
  });

  const ApprovalDecisionPayloadSchema = z.looseObject({
    type: z.literal("approval_decision"),
    decision: z.enum(["allow", "deny", "forbidden"]),
    tool_call_id: nonEmptyString,
    source: DecisionSourceSchema.optional(),
    /** Why, in words a human or the model can act on. */
    reason: optionalString,
  });

  const TokenUsagePayloadSchema = z.looseObject({
    type: z.literal("token_usage"),
    request: TokenCountsSchema,
    session: TokenCountsSchema,
    /** Cost in US dollars where the model's prices are known. */
    request_cost_usd: optionalNonNegativeNumber,
    session_cost_usd: optionalNonNegativeNumber,
  });

  const compactionReason = z.enum(["context", "turns", "manual"]);
  const compactionMode = z.enum(["summarize", "discard"]);

  const CompactionBeginPayloadSchema = z.looseObject({
    type: z.literal("compaction_begin"),
    reason: compactionReason,
    mode: compactionMode,
  });

  const CompactionEndPayloadSchema = z.looseObject({
    type: z.literal("compaction_end"),
    reason: compactionReason,
    mode: compactionMode,
    status: StopReasonSchema,
    ...retryDetail,
  });

  const AbortPayloadSchema = z.looseObject({
    type: z.literal("abort"),
    reason: optionalString,
  });

  /** Pointer from a parent's trace to a child session's trace. */
  const SubagentPayloadSchema = z.looseObject({
    type: z.literal("subagent"),
    session_id: nonEmptyString,
    subagent_id: optionalString,
    tool_call_id: optionalString,
  });

  /**
   * A message between two agents of one session (send_message / wait_messages). `from` and `to` are
   * agent run ids: `root` for the session's own agent, a child's id (`sub_N`) otherwise. The same
   * `message_id` is in the sender's trace (`message_sent`) and the recipient's (`message_delivered`),
   * which is how the two traces connect.
   */
  const agentMessageFields = {
    message_id: nonEmptyString,
    from: nonEmptyString,
    to: nonEmptyString,
    /** When the sender sent it (ISO 8601). */
    sent_at: anyString,
    /** Set when the message is a question `ask` put (`q_N`); it is answered with `reply_to`. */
    question_id: optionalString,
    /** Set when the message answers that question (`q_N`) of its recipient, instead of waiting in its inbox. */
    reply_to: optionalString,
  };

  /** The caller's send_message put a message into the recipient's inbox. */
  const MessageSentPayloadSchema = z.looseObject({
    type: z.literal("message_sent"),
    ...agentMessageFields,
    text: anyString,
    tool_call_id: optionalString,
  });

  /** The caller's wait_messages took a message out of its inbox and handed it to the model. */
  const MessageDeliveredPayloadSchema = z.looseObject({
    type: z.literal("message_delivered"),
    ...agentMessageFields,
    text: anyString,
    tool_call_id: optionalString,
  });

  /** A task ended on one of its limits (max_turns, tokens, cost, wall time, context window). */
  const LimitReachedPayloadSchema = z.looseObject({
    type: z.literal("limit_reached"),
    limit: z.enum(["max_turns", "tokens", "cost", "wall_time", "context_window"]),
    /** The configured limit and the amount used, in the limit's unit. */
    max: z.number(),
    used: z.number(),
    message: anyString,
  });

  /** A task ended: its stop reason, and a message when it did not complete. */
  const TaskEndPayloadSchema = z.looseObject({
    type: z.literal("task_end"),
    status: StopReasonSchema,
    message: optionalString,
  });

  /** How an MCP server is reached (`tools.mcpServers[].config.transport`). */
  const McpTransportSchema = z.enum(["stdio", "http", "sse"]);

  /** A session's MCP servers start connecting (before its first model request); names in config order. */
  const McpConnectBeginPayloadSchema = z.looseObject({
    type: z.literal("mcp_connect_begin"),
    servers: z.array(anyString),
  });

  /** How connecting one MCP server ended. */
  const McpServerConnectResultSchema = z.looseObject({
    server: anyString,
    transport: McpTransportSchema,
    /** completed: connected and its tools listed; timeout: past its connectTimeoutMs; aborted: the task was interrupted. */
    status: z.enum(["completed", "failed", "timeout", "aborted"]),
    duration_ms: nonNegativeInt,
    /** The names the model is offered for the server's tools (when it connected). */
    tools: z.array(anyString).optional(),
    /** Why it did not connect, in one line. */
    error: optionalString,
    /** Tools the server listed that the model is not offered, each with why (by the server's name for it). */
    left_out: z.array(z.object({ tool: anyString, reason: anyString })).optional(),
  });

  /**
   * Connecting ended: completed when every server connected, failed when one or more did not (the
   * session goes on without them), aborted when the task was interrupted while connecting.
   */
  const McpConnectEndPayloadSchema = z.looseObject({
    type: z.literal("mcp_connect_end"),
    status: z.enum(["completed", "failed", "aborted"]),
    results: z.array(McpServerConnectResultSchema),
  });

  /**
   * One run of a hook around a tool call ("every hook decision is traced"): a before-hook's allow
   * or deny, or an after-hook's output. A before-hook's deny is also the call's one
   * `approval_decision` (source kind "hook").
   */
  const HookResultPayloadSchema = z.looseObject({
    type: z.literal("hook_result"),
    /** The hook's name as configured (workspace hooks are named `workspace:<name>`). */
    hook: nonEmptyString,
    phase: z.enum(["before_tool", "after_tool"]),
    tool_call_id: nonEmptyString,
    tool_name: anyString,
    /** A before-hook's verdict. */
    decision: z.enum(["allow", "deny"]).optional(),
    /** How the hook ended: its exit code, or that it timed out or could not run. */
    outcome: z.enum(["exited", "timeout", "error"]),
    exit_code: z.number().int().optional(),
    /** Its reason (a deny's, or why it failed). */
    reason: optionalString,
    /** What it printed (stdout, then stderr), capped at its `max_output_chars`. */
    output: anyString,
    duration_ms: optionalNonNegativeNumber,
  });

  /**
   * Something the session could not use as configured and went on without (a broken SKILL.md, a
   * workspace hooks file that is ignored): traced and streamed, so SDK and web users see what a
   * terminal user reads on stderr.
   */
  const WarningPayloadSchema = z.looseObject({
    type: z.literal("warning"),
    /** What it is about: `skills`, `hooks`, `directory`… */
    source: nonEmptyString,
    message: nonEmptyString,
    /** The file it is about, when there is one. */
    file: optionalString,
  });

  /** How a goal-mode run ended (see `GoalFinishedPayloadSchema`). */
  const GoalOutcomeSchema = z.enum(["complete", "blocked", "budget_limited", "aborted"]);

  /**
   * A goal-mode run ended: the model marked the goal `complete` or `blocked` in its goal file, the
   * token budget ran out (after one wrap-up round), or the run was interrupted or cut off
   * (`aborted`). The last event of the run, after its final `task_end`.
   */
  const GoalFinishedPayloadSchema = z.looseObject({
    type: z.literal("goal_finished"),
    outcome: GoalOutcomeSchema,
    /** Model requests the goal took (its rounds), retries not counted. */
    rounds: nonNegativeInt,
    /** Tokens the goal spent: Σ(request total − cache_read) over its requests. */
    tokens_used: nonNegativeInt,
    /** Why, in words: the model's blocker, what cut the run short, or the budget spent. */
    reason: optionalString,
  });

  const EventPayloadSchema = z.discriminatedUnion("type", [
    ToolListReadyPayloadSchema,
    RequestBeginPayloadSchema,
    RequestEndPayloadSchema,
    ApprovalDecisionPayloadSchema,
    TokenUsagePayloadSchema,
    CompactionBeginPayloadSchema,
    CompactionEndPayloadSchema,
    AbortPayloadSchema,
    SubagentPayloadSchema,
    MessageSentPayloadSchema,
    MessageDeliveredPayloadSchema,
    LimitReachedPayloadSchema,
    TaskEndPayloadSchema,
    McpConnectBeginPayloadSchema,
    McpConnectEndPayloadSchema,
    HookResultPayloadSchema,
    WarningPayloadSchema,
    GoalFinishedPayloadSchema,
    AgentLaunchedPayloadSchema,
    AgentStoppedPayloadSchema,
    AgentFinishedPayloadSchema,
    QuestionAskedPayloadSchema,
    QuestionAnsweredPayloadSchema,
    NoticeDeliveredPayloadSchema,
    ToolDispatchedPayloadSchema,
    ToolEffectPayloadSchema,
    ActivityResolvedPayloadSchema,
    FileCheckpointPayloadSchema,
    TaskChangesPayloadSchema,
    ChangesRevertedPayloadSchema,
    PlanUpdatedPayloadSchema,
    PlanProposedPayloadSchema,
  ]);
  return {
    ToolSpecSchema,
    DecisionSourceSchema,
    ApprovalDecisionPayloadSchema,
    TokenUsagePayloadSchema,
    MessageSentPayloadSchema,
    MessageDeliveredPayloadSchema,
    LimitReachedPayloadSchema,
    McpServerConnectResultSchema,
    McpConnectEndPayloadSchema,
    HookResultPayloadSchema,
    WarningPayloadSchema,
    GoalOutcomeSchema,
    GoalFinishedPayloadSchema,
    EventPayloadSchema,
  };
});
type Schemas = ReturnType<typeof eventSchemas>;
export type ToolSpec = z.infer<Schemas["ToolSpecSchema"]>;
export type DecisionSource = z.infer<Schemas["DecisionSourceSchema"]>;
export type ApprovalDecisionPayload = z.infer<Schemas["ApprovalDecisionPayloadSchema"]>;
export type TokenUsagePayload = z.infer<Schemas["TokenUsagePayloadSchema"]>;
export type MessageSentPayload = z.infer<Schemas["MessageSentPayloadSchema"]>;
export type MessageDeliveredPayload = z.infer<Schemas["MessageDeliveredPayloadSchema"]>;
export type LimitReachedPayload = z.infer<Schemas["LimitReachedPayloadSchema"]>;
export type McpServerConnectResult = z.infer<Schemas["McpServerConnectResultSchema"]>;
export type McpConnectEndPayload = z.infer<Schemas["McpConnectEndPayloadSchema"]>;
export type HookResultPayload = z.infer<Schemas["HookResultPayloadSchema"]>;
export type WarningPayload = z.infer<Schemas["WarningPayloadSchema"]>;
export type GoalOutcome = z.infer<Schemas["GoalOutcomeSchema"]>;
export type GoalFinishedPayload = z.infer<Schemas["GoalFinishedPayloadSchema"]>;
export type EventPayload = z.infer<Schemas["EventPayloadSchema"]>;
export type EventType = EventPayload["type"];
export type EventOf<T extends EventType> = Extract<EventPayload, { type: T }>;
