import type {
  ApprovalDecisionPayload,
  DecisionSource,
  OmniMessage,
  StopReason,
  ToolCallPayload,
} from "@penguin/protocol";

/** One approval decision with the tool call it decided. */
export interface AuditEntry {
  /** When the decision was made. */
  timestamp: string;
  toolCallId: string;
  decision: ApprovalDecisionPayload["decision"];
  source?: DecisionSource;
  reason?: string;
  /** The tool call's name and arguments as the model wrote them; absent if the trace lacks the call. */
  toolName?: string;
  arguments?: string;
  /** How the call ended (its tool_call_output's stop_reason), when it has an output. */
  outcome?: StopReason;
  /** Set when the decision was made inside a subagent (child session ids, outer to inner). */
  origin?: string[];
}

/** Every `approval_decision` of the records, in order, joined with its tool call and outcome. */
export function approvalAudit(records: readonly OmniMessage[]): AuditEntry[] {
  const calls = new Map<string, ToolCallPayload>();
  const outcomes = new Map<string, StopReason>();
  for (const record of records) {
    if (record.type !== "model_msg") continue;
    const payload = record.payload;
    if (payload.type === "tool_call" && !calls.has(payload.tool_call_id))
      calls.set(payload.tool_call_id, payload);
    if (payload.type === "tool_call_output" && payload.stop_reason && !outcomes.has(payload.tool_call_id)) {
      outcomes.set(payload.tool_call_id, payload.stop_reason);
    }
  }
  const entries: AuditEntry[] = [];
  for (const record of records) {
    if (record.type !== "event_msg" || record.payload.type !== "approval_decision") continue;
    const decision = record.payload;
    const entry: AuditEntry = {
      timestamp: record.timestamp,
      toolCallId: decision.tool_call_id,
      decision: decision.decision,
    };
    if (decision.source) entry.source = decision.source;
    if (decision.reason !== undefined) entry.reason = decision.reason;
    const call = calls.get(decision.tool_call_id);
    if (call) {
      entry.toolName = call.name;
      entry.arguments = call.arguments;
    }
    const outcome = outcomes.get(decision.tool_call_id);
    if (outcome) entry.outcome = outcome;
    if (record.origin && record.origin.length > 0) entry.origin = record.origin;
    entries.push(entry);
  }
  return entries;
}
