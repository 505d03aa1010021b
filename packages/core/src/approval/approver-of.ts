import { errorMessage } from "@penguin/protocol";
import type { ApprovalContext, ApproveFn, Approver, PolicyDecision } from "./approver.js";

/** Whether a value is an approver (an object with `decide`), not a plain callback. */
export function isApprover(value: unknown): value is Approver {
  return (
    typeof value === "object" && value !== null && typeof (value as Partial<Approver>).decide === "function"
  );
}

/**
 * The approver of what a user of the SDK passes as `approve`: an approver as it is, a plain
 * callback wrapped (this is the only place a callback is wrapped), nothing as nothing (the gate
 * then denies every call).
 */
export function approverOf(approve: ApproveFn | Approver | undefined): Approver | undefined {
  if (approve === undefined || isApprover(approve)) return approve;
  return callbackApprover(approve);
}

/**
 * A callback decides what no rule the human granted already covers. Its "allow" allows, any other
 * answer denies, and a throw denies with the error as the reason.
 */
function callbackApprover(approve: ApproveFn): Approver {
  return {
    async decide(call, context: ApprovalContext): Promise<PolicyDecision> {
      const granted = context.rules.match(call);
      if (granted) return { decision: "allow", source: { kind: "session_rule", name: granted } };
      try {
        const answer = await approve(call);
        return { decision: answer === "allow" ? "allow" : "deny", source: { kind: "callback" } };
      } catch (error) {
        return {
          decision: "deny",
          source: { kind: "callback" },
          reason: `the approval callback threw: ${errorMessage(error)}`,
        };
      }
    },
  };
}

/** The earlier name of `isApprover`, from when policies were callable; kept for existing callers. */
export const isApprovalPolicy = isApprover;
