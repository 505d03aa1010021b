import type { OmniMessage, PlanStep } from "@penguin/protocol";

// The session's plan as its trace left it: the model's latest checklist (`plan_updated`) and the
// latest plan a plan-mode task proposed (`plan_proposed`). Only the session's own records count:
// a subagent's checklist is its own.

export interface SessionPlan {
  /** The latest checklist; absent when the model never set one. */
  steps?: PlanStep[];
  /** The note of that update, when it had one. */
  note?: string;
  /** The latest proposed plan's text. */
  proposed?: string;
}

/** Folds one record into `plan` (the same rule for a resume and a live session). */
export function applyPlanRecord(plan: SessionPlan, record: OmniMessage): void {
  if (record.type !== "event_msg" || (record.origin !== undefined && record.origin.length > 0)) return;
  const payload = record.payload;
  if (payload.type === "plan_updated") {
    plan.steps = payload.steps.map((entry) => ({ step: entry.step, status: entry.status }));
    if (payload.note !== undefined) plan.note = payload.note;
    else delete plan.note;
  } else if (payload.type === "plan_proposed") {
    plan.proposed = payload.text;
  }
}

/** The plan of a session's records, oldest first. */
export function planOfRecords(records: readonly OmniMessage[]): SessionPlan {
  const plan: SessionPlan = {};
  for (const record of records) applyPlanRecord(plan, record);
  return plan;
}
