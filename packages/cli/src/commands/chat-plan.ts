import { APPROVAL_MODES, type ApprovalMode } from "@penguin/state";
import { UsageError } from "../exit-codes.js";

// Plan mode in the chat: `/plan` switches it on and off, and a proposed plan is approved (run in
// the mode the person picks) or kept to be adjusted by the next prompt.

/** Asked at a terminal after a plan-mode task proposed a plan. */
export const PLAN_APPROVAL_QUESTION =
  "Approve the plan? [a] allow-all / [s] ask each call / [n] keep planning (type changes) ";

/** Said where nobody can be asked (lines piped on stdin): how to approve or adjust. */
export const PLAN_APPROVAL_HINT = "approve it with /plan approve [mode], or type changes to keep planning";

/** The mode a plan-approval answer picks; undefined: keep planning. */
export function modeOfPlanAnswer(answer: string): ApprovalMode | undefined {
  const key = answer.trim().toLowerCase();
  if (key === "a" || key === "allow-all") return "allow-all";
  if (key === "s" || key === "always-ask") return "always-ask";
  return undefined;
}

/** `/plan approve [mode]`: the mode the plan runs in (default: the one before plan mode). */
export function modeOfPlanApproval(arg: string, before: string): ApprovalMode {
  const given = arg.trim() || before;
  const mode = APPROVAL_MODES.find((name) => name === given);
  if (mode === undefined || mode === "plan")
    throw new UsageError(
      `/plan approve takes the mode to run the plan in: ${APPROVAL_MODES.filter((m) => m !== "plan").join(", ")}`,
    );
  return mode;
}
