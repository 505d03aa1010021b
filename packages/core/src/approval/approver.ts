import type { DecisionSource, OmniMessage, Permission, ToolCallPayload } from "@penguin/protocol";
import type { ApprovalMode } from "@penguin/state";
import type { SessionRule, SessionRules } from "./session-rules.js";

/**
 * A plain approval callback, as a user of the SDK writes one ("Every complete tool_call triggers
 * exactly one approval decision: type ApproveFn = …"). The SDK turns it into an `Approver` once,
 * where it enters (`approverOf`); the engine only ever sees approvers.
 */
export type ApproveFn = (toolCall: OmniMessage<ToolCallPayload>) => Promise<"allow" | "deny">;

/** What an approver knows about a call besides the call itself. */
export interface ApprovalContext {
  /** The tool's permission; undefined for a tool the session does not offer. */
  permission?: Permission;
  /** The rules granted so far in the session. */
  rules: SessionRules;
  signal?: AbortSignal;
}

/** A call and its context together, as a human is asked about it (see `AskFn`). */
export interface ApprovalRequest extends ApprovalContext {
  call: OmniMessage<ToolCallPayload>;
}

/** What an approver decided about one call. */
export interface PolicyDecision {
  decision: "allow" | "deny";
  source: DecisionSource;
  reason?: string;
  /** A rule the human granted with this decision. */
  remember?: SessionRule;
}

/**
 * The one shape of whatever decides tool calls: the four mode policies, a wrapped callback, a
 * server's per-session policy. The approval gate asks it once per call, after the guardrail and
 * the before-hooks; a throw counts as deny.
 */
export interface Approver {
  /** The approval mode this approver implements, when it implements one. */
  readonly mode?: ApprovalMode;
  decide(
    call: OmniMessage<ToolCallPayload>,
    context: ApprovalContext,
  ): Promise<PolicyDecision> | PolicyDecision;
}

/** One of the four approval modes as an approver, reusable across sessions. */
export interface ApprovalPolicy extends Approver {
  readonly mode: ApprovalMode;
}
