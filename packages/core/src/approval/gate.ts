import type { DecisionSource, OmniMessage, Permission, ToolCallPayload } from "@penguin/protocol";
import { errorMessage } from "@penguin/protocol";
import type { GuardrailRule } from "@penguin/state";
import type { BeforeHooksVerdict } from "../hooks/runner.js";
import type { Approver } from "./approver.js";
import { checkToolCall } from "./guardrail.js";
import type { SessionRule, SessionRules } from "./session-rules.js";

/** The one decision a tool call gets, as its `approval_decision` event records it. */
export interface ApprovalOutcome {
  decision: "allow" | "deny" | "forbidden";
  source: DecisionSource;
  reason?: string;
  /** A session rule the human granted with this decision (already added to the session's rules). */
  rule?: SessionRule;
  /** The `hook_result` events of the before-hooks that ran, traced before the decision. */
  events?: OmniMessage[];
}

export interface ApprovalGateOptions {
  guardrail: readonly GuardrailRule[];
  rules: SessionRules;
  permissionOf(toolName: string): Permission | undefined;
  /** The session's before-hooks: run after the guardrail and before the policy or callback. */
  beforeHooks?: (call: OmniMessage<ToolCallPayload>, signal?: AbortSignal) => Promise<BeforeHooksVerdict>;
}

/** "With none injected the engine denies by default (conservative — nothing gets approved unattended)". */
export const NO_APPROVER_REASON = "no approval callback was given for this run, so every call is denied";

/**
 * "Every complete tool_call triggers exactly one approval decision": this function is that
 * decision. The engine calls it once per tool call (never again for a retried request, which
 * starts new calls), and it asks the approver at most once; its outcome becomes the call's one
 * `approval_decision` event. Tested by test/approval/one-decision-per-call.test.ts.
 *
 * Decides one call: the command guardrail first (under every mode, before any callback is
 * asked), then the before-hooks (a hook's deny applies under every mode, allow-all included),
 * then the approver, and a deny when there is none. Never throws: a throwing approver counts as
 * deny.
 */
export async function decideApproval(
  call: OmniMessage<ToolCallPayload>,
  approver: Approver | undefined,
  options: ApprovalGateOptions,
  signal?: AbortSignal,
): Promise<ApprovalOutcome> {
  const hit = checkToolCall(options.guardrail, call);
  if (hit) {
    return {
      decision: "forbidden",
      source: { kind: "guardrail", name: hit.rule.name },
      reason: `${hit.rule.message} (rule ${hit.rule.name} matched: ${hit.part})`,
    };
  }
  let events: OmniMessage[] = [];
  if (options.beforeHooks) {
    let verdict: BeforeHooksVerdict;
    try {
      verdict = await options.beforeHooks(call, signal);
    } catch (error) {
      // The runner reports failures as denials itself; this is only a bug's safety net.
      return {
        decision: "deny",
        source: { kind: "hook" },
        reason: `the before-hooks could not run: ${errorMessage(error)}`,
      };
    }
    events = verdict.events;
    if (verdict.deny) {
      return {
        decision: "deny",
        source: { kind: "hook", name: verdict.deny.hook },
        reason: verdict.deny.reason,
        events,
      };
    }
  }
  const outcome = await decideByApprover(call, approver, options, signal);
  return events.length > 0 ? { ...outcome, events } : outcome;
}

/** The approver, or the default deny, once the guardrail and hooks let a call through. */
async function decideByApprover(
  call: OmniMessage<ToolCallPayload>,
  approver: Approver | undefined,
  options: ApprovalGateOptions,
  signal?: AbortSignal,
): Promise<ApprovalOutcome> {
  if (approver === undefined)
    return { decision: "deny", source: { kind: "default" }, reason: NO_APPROVER_REASON };
  try {
    const decided = await approver.decide(call, {
      permission: options.permissionOf(call.payload.name),
      rules: options.rules,
      signal,
    });
    const outcome: ApprovalOutcome = { decision: decided.decision, source: decided.source };
    if (decided.reason) outcome.reason = decided.reason;
    if (decided.remember && options.rules.add(decided.remember)) outcome.rule = decided.remember;
    return outcome;
  } catch (error) {
    return {
      decision: "deny",
      source: approver.mode ? { kind: "mode", name: approver.mode } : { kind: "callback" },
      reason: `approval failed: ${errorMessage(error)}`,
    };
  }
}
