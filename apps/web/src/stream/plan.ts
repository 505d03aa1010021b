import type { OmniMessage, PlanStep } from "@penguin/protocol";

/** The session's plan as the chat view shows it: the model's checklist and a plan to approve. */
export interface PlanView {
  /** The latest checklist (`plan_updated`); absent until the model keeps one. */
  steps?: PlanStep[];
  /** The note of that update. */
  note?: string;
  /**
   * The plan a plan-mode task proposed (`plan_proposed`) that waits for the person: no task has
   * run since it (approving or adjusting it starts one, and a task ends with `task_end`).
   */
  ready?: { text: string; path?: string };
}

/**
 * Folds the session's own records (not its subagents') into its plan, oldest first: each
 * checklist update replaces the last one, and a proposal waits until the next task ends.
 */
export function planOf(records: readonly OmniMessage[]): PlanView {
  const view: PlanView = {};
  for (const message of records) {
    if (message.type !== "event_msg" || (message.origin !== undefined && message.origin.length > 0)) continue;
    const event = message.payload as { type: string; [field: string]: unknown };
    if (event.type === "plan_updated" && Array.isArray(event.steps)) {
      view.steps = (event.steps as PlanStep[]).map((s) => ({ step: String(s.step), status: s.status }));
      if (typeof event.note === "string") view.note = event.note;
      else delete view.note;
    } else if (event.type === "plan_proposed" && typeof event.text === "string") {
      view.ready = { text: event.text, ...(typeof event.path === "string" ? { path: event.path } : {}) };
    } else if (event.type === "task_end") {
      // `plan_proposed` comes after its own task's end: a later end is a later task's.
      delete view.ready;
    }
  }
  return view;
}
