import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type OmniMessage, planProposed, userText } from "@penguin/protocol";
import { ensurePrivateDir, modelVisiblePath } from "@penguin/state";
import { applyPlanRecord, type SessionPlan } from "@penguin/trace";
import type { ApproveFn, Approver } from "../approval/approver.js";
import { approverOf } from "../approval/approver-of.js";
import { block } from "../engine/markers.js";
import type { RoundDriver } from "../engine/rounds.js";
import type { ConversationState, ModelMessage } from "../engine/types.js";
import { PLAN_FILE_NAME } from "./open-work.js";

// Plan mode and the session's plan. A task whose approver is in mode "plan" runs reading tools
// only (approval/policies.ts refuses the rest), is told so in every request, and its answer is
// the plan: recorded as `plan_proposed` and written to `<scratchpad>/PLAN.md`. Approving it runs
// the next task in the mode the person chose, with the plan as its input.

/** The system marker of the block that tells the model it is in plan mode (never stored). */
export const PLAN_MODE_TAG = "plan_mode";

export const PLAN_MODE_INSTRUCTION =
  "You are in plan mode: only reading tools run; anything that would change files or run commands is refused. Investigate what you need, then answer with the plan: the steps, the files to change, and how to check the result. The person approves it (then you carry it out) or asks for changes.";

/** Whether the task's approver is plan mode's. */
export function inPlanMode(approve: ApproveFn | Approver | undefined): boolean {
  return approverOf(approve)?.mode === "plan";
}

/** The block each plan-mode request ends with. */
export function planModeBlock(): ModelMessage {
  return userText(block(PLAN_MODE_TAG, PLAN_MODE_INSTRUCTION), { sender: "harness" }) as ModelMessage;
}

/** Adds the plan-mode block to every request, around a task's own driver (a goal) if it has one. */
export function planModeRounds(inner: RoundDriver | undefined): RoundDriver {
  return {
    requestTail: async (request) => [...((await inner?.requestTail(request)) ?? []), planModeBlock()],
    afterRound: async (round) =>
      inner ? inner.afterRound(round) : round.idle ? { next: "end" } : { next: "continue" },
  };
}

/**
 * Follows one task's records: every `plan_updated` moves the session's plan, and in plan mode the
 * texts of the last model request are the answer, proposed as the plan when the task completes.
 */
export class PlanTaskWatch {
  private answer: string[] = [];
  private completed = false;

  constructor(
    private readonly state: ConversationState,
    private readonly planning: boolean,
  ) {}

  observe(message: OmniMessage): void {
    if (message.origin !== undefined && message.origin.length > 0) return;
    const payload = message.payload;
    if (message.type === "event_msg") {
      applyPlanRecord(this.plan(), message);
      if (payload.type === "request_begin") this.answer = [];
      if (payload.type === "task_end") this.completed = payload.status === "completed";
      return;
    }
    if (payload.type === "text" && payload.role === "assistant" && payload.text.trim() !== "")
      this.answer.push(payload.text.trim());
  }

  private plan(): SessionPlan {
    if (!this.state.plan) this.state.plan = {};
    return this.state.plan;
  }

  /** The `plan_proposed` event of a plan-mode task that completed with an answer (its PLAN.md written). */
  async proposal(scratchpadDir: string): Promise<OmniMessage | undefined> {
    if (!this.planning || !this.completed || this.answer.length === 0) return undefined;
    const text = this.answer.join("\n\n");
    let path: string | undefined;
    try {
      path = await writeProposedPlan(scratchpadDir, text);
    } catch {
      // The event carries the plan; the file is a copy for the person.
    }
    const event = planProposed(text, path === undefined ? undefined : modelVisiblePath(path));
    applyPlanRecord(this.plan(), event);
    return event;
  }
}

/** Writes a proposed plan to `<scratchpad>/PLAN.md` (0600), replacing the last one. */
export async function writeProposedPlan(scratchpadDir: string, text: string): Promise<string> {
  await ensurePrivateDir(scratchpadDir);
  const path = join(scratchpadDir, PLAN_FILE_NAME);
  await writeFile(path, `${text.trimEnd()}\n`, { mode: 0o600 });
  return path;
}

/** The session's plan, as a copy a caller may keep. */
export function planSnapshot(state: ConversationState): SessionPlan {
  return structuredClone(state.plan ?? {});
}

/**
 * The input of the task that carries out an approved plan: the plan given, else the latest one
 * proposed. Throws when there is none, or when the approver is plan mode's (nothing would run).
 */
export function approvedPlanInput(
  state: ConversationState,
  options: { plan?: string; approve?: ApproveFn | Approver },
): string {
  if (inPlanMode(options.approve))
    throw new Error("session.approvePlan: choose the mode to carry out the plan in; plan mode runs nothing");
  const plan = (options.plan ?? state.plan?.proposed)?.trim();
  if (!plan) throw new Error("session.approvePlan: this session has no proposed plan yet");
  return `The plan is approved. Carry out the approved plan now, step by step:\n\n${plan}`;
}
