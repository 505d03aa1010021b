import type { StopReason, TokenCounts } from "./common.js";
import type { OmniMessage } from "./envelope.js";
import type {
  DecisionSource,
  EventPayload,
  GoalOutcome,
  HookResultPayload,
  McpConnectEndPayload,
  McpServerConnectResult,
  ToolSpec,
} from "./events.js";
import type {
  CompleteModelPayload,
  PartialEventType,
  PartialTextPayload,
  PartialThinkingPayload,
  PartialToolCallOutputPayload,
  PartialToolCallPayload,
  TextPayload,
  ThinkingPayload,
  ToolCallOutputPayload,
  ToolCallPayload,
} from "./model-messages.js";
import type { SessionMetaPayload } from "./session-meta.js";
import { PROTOCOL_VERSION } from "./version.js";

// Builders stamp the envelope (timestamp, type) so callers only say what happened.

const now = () => new Date().toISOString();

export function modelMsg<P extends OmniMessage["payload"] & { type: string }>(payload: P): OmniMessage<P> {
  return { timestamp: now(), type: "model_msg", payload } as OmniMessage<P>;
}

export function eventMsg<P extends EventPayload>(payload: P): OmniMessage<P> {
  return { timestamp: now(), type: "event_msg", payload } as OmniMessage<P>;
}

export function sessionMeta(
  payload: Omit<SessionMetaPayload, "protocol_version"> & { protocol_version?: number },
): OmniMessage<SessionMetaPayload> {
  return {
    timestamp: now(),
    type: "session_meta",
    payload: { ...payload, protocol_version: payload.protocol_version ?? PROTOCOL_VERSION },
  } as OmniMessage<SessionMetaPayload>;
}

/** Tags a message as produced by a child session (prepends the child's id: outer to inner). */
export function withOrigin<M extends OmniMessage>(message: M, childSessionId: string): M {
  return { ...message, origin: [childSessionId, ...(message.origin ?? [])] };
}

type TextOpts = Partial<Pick<TextPayload, "sender" | "stop_reason" | "fidelity">>;

export function userText(text: string, opts: TextOpts = {}): OmniMessage<TextPayload> {
  return modelMsg<TextPayload>({ type: "text", role: "user", text, ...opts });
}

export function assistantText(text: string, opts: TextOpts = {}): OmniMessage<TextPayload> {
  return modelMsg<TextPayload>({ type: "text", role: "assistant", text, ...opts });
}

export function thinking(
  text: string,
  opts: Partial<Pick<ThinkingPayload, "stop_reason" | "fidelity">> = {},
): OmniMessage<ThinkingPayload> {
  return modelMsg<ThinkingPayload>({ type: "thinking", role: "assistant", thinking: text, ...opts });
}

export function toolCall(
  name: string,
  args: string | Record<string, unknown>,
  toolCallId: string,
  opts: Partial<Pick<ToolCallPayload, "stop_reason" | "fidelity">> = {},
): OmniMessage<ToolCallPayload> {
  const argsText = typeof args === "string" ? args : JSON.stringify(args);
  return modelMsg<ToolCallPayload>({
    type: "tool_call",
    role: "assistant",
    name,
    arguments: argsText,
    tool_call_id: toolCallId,
    ...opts,
  });
}

export function toolCallOutput(
  toolCallId: string,
  output: string,
  stopReason: StopReason = "completed",
  images?: string[],
): OmniMessage<ToolCallOutputPayload> {
  const payload: ToolCallOutputPayload = {
    type: "tool_call_output",
    role: "user",
    output,
    tool_call_id: toolCallId,
    stop_reason: stopReason,
  };
  if (images && images.length > 0) payload.images = images;
  return modelMsg(payload);
}

export function partialText(
  eventType: PartialEventType,
  text = "",
  role: "user" | "assistant" = "assistant",
): OmniMessage<PartialTextPayload> {
  return modelMsg<PartialTextPayload>({ type: "partial_text", event_type: eventType, role, text });
}

export function partialThinking(eventType: PartialEventType, text = ""): OmniMessage<PartialThinkingPayload> {
  return modelMsg<PartialThinkingPayload>({
    type: "partial_thinking",
    event_type: eventType,
    thinking: text,
  });
}

export function partialToolCall(
  eventType: PartialEventType,
  toolCallId: string,
  argumentsFragment = "",
  name?: string,
): OmniMessage<PartialToolCallPayload> {
  const payload: PartialToolCallPayload = {
    type: "partial_tool_call",
    event_type: eventType,
    tool_call_id: toolCallId,
    arguments: argumentsFragment,
  };
  if (name !== undefined) payload.name = name;
  return modelMsg(payload);
}

export function partialToolCallOutput(
  eventType: PartialEventType,
  toolCallId: string,
  outputFragment = "",
  images?: string[],
): OmniMessage<PartialToolCallOutputPayload> {
  const payload: PartialToolCallOutputPayload = {
    type: "partial_tool_call_output",
    event_type: eventType,
    tool_call_id: toolCallId,
    output: outputFragment,
  };
  if (images && images.length > 0) payload.images = images;
  return modelMsg(payload);
}

// Events

export const toolListReady = (tools: ToolSpec[]) => eventMsg({ type: "tool_list_ready", tools });

export const requestBegin = (attempt?: number) =>
  eventMsg({ type: "request_begin", ...(attempt ? { attempt } : {}) });

export const requestEnd = (
  status: StopReason,
  detail: { error_message?: string; attempt?: number; retry_in_ms?: number } = {},
) => eventMsg({ type: "request_end", status, ...detail });

export const approvalDecision = (
  toolCallId: string,
  decision: "allow" | "deny" | "forbidden",
  source?: DecisionSource,
  reason?: string,
) =>
  eventMsg({
    type: "approval_decision",
    decision,
    tool_call_id: toolCallId,
    ...(source ? { source } : {}),
    ...(reason ? { reason } : {}),
  });

export const tokenUsage = (
  request: TokenCounts,
  session: TokenCounts,
  cost?: { request_cost_usd?: number; session_cost_usd?: number },
) => eventMsg({ type: "token_usage", request, session, ...(cost ?? {}) });

export const abortEvent = (reason?: string) => eventMsg({ type: "abort", ...(reason ? { reason } : {}) });

export const subagentPointer = (
  sessionId: string,
  extra: { subagent_id?: string; tool_call_id?: string } = {},
) => eventMsg({ type: "subagent", session_id: sessionId, ...extra });

/** Fields shared by `message_sent` and `message_delivered`. */
export interface AgentMessageEventFields {
  message_id: string;
  from: string;
  to: string;
  sent_at: string;
  text: string;
  tool_call_id?: string;
}

export const messageSent = (fields: AgentMessageEventFields) => eventMsg({ type: "message_sent", ...fields });

export const messageDelivered = (fields: AgentMessageEventFields) =>
  eventMsg({ type: "message_delivered", ...fields });

/** A hook's run around a tool call (see `HookResultPayloadSchema`). */
export const hookResult = (result: {
  hook: string;
  phase: HookResultPayload["phase"];
  tool_call_id: string;
  tool_name: string;
  decision?: "allow" | "deny";
  outcome: HookResultPayload["outcome"];
  exit_code?: number;
  reason?: string;
  output: string;
  duration_ms?: number;
}) => eventMsg({ type: "hook_result", ...result });

/** A warning about something the session went on without (see `WarningPayloadSchema`). */
export const warningEvent = (source: string, message: string, file?: string) =>
  eventMsg({ type: "warning", source, message, ...(file !== undefined ? { file } : {}) });

/** The end of a goal-mode run (see `GoalFinishedPayloadSchema`). */
export const goalFinished = (result: {
  outcome: GoalOutcome;
  rounds: number;
  tokens_used: number;
  reason?: string;
}) =>
  eventMsg({
    type: "goal_finished",
    outcome: result.outcome,
    rounds: result.rounds,
    tokens_used: result.tokens_used,
    ...(result.reason !== undefined ? { reason: result.reason } : {}),
  });

export const taskEnd = (status: StopReason, message?: string) =>
  eventMsg({ type: "task_end", status, ...(message ? { message } : {}) });

export const mcpConnectBegin = (servers: string[]) => eventMsg({ type: "mcp_connect_begin", servers });

export const mcpConnectEnd = (status: McpConnectEndPayload["status"], results: McpServerConnectResult[]) =>
  eventMsg({ type: "mcp_connect_end", status, results });

// Guards

export type Payload = OmniMessage["payload"];

export function isCompleteModelMessage(m: OmniMessage): m is OmniMessage<CompleteModelPayload> {
  return m.type === "model_msg" && !m.payload.type.startsWith("partial_");
}

export function isPartialMessage(
  m: OmniMessage,
): m is OmniMessage<
  PartialTextPayload | PartialThinkingPayload | PartialToolCallPayload | PartialToolCallOutputPayload
> {
  return m.type === "model_msg" && m.payload.type.startsWith("partial_");
}

export function isEventMessage(m: OmniMessage): m is OmniMessage<EventPayload> {
  return m.type === "event_msg";
}

export function isSessionMeta(m: OmniMessage): m is OmniMessage<SessionMetaPayload> {
  return m.type === "session_meta";
}

/** Narrows a message to one payload type, e.g. `isPayload(m, "tool_call")`. */
export function isPayload<T extends string>(
  m: OmniMessage,
  type: T,
): m is Extract<OmniMessage, { payload: { type: T } }> {
  return m.type !== "session_meta" && (m.payload as { type?: string }).type === type;
}
