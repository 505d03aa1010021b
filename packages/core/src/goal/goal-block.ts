import { userText } from "@penguin/protocol";
import { modelVisiblePath } from "@penguin/state";
import { block } from "../engine/markers.js";
import type { ModelMessage } from "../engine/types.js";
import type { GoalStatus } from "./goal-file.js";
import { ROUNDS_BEFORE_BLOCKED } from "./limits.js";

// The texts goal mode sends the model. The `[goal]` block goes after the context of every
// request and is never stored; the continuation and wrap-up messages join the context.

/** The system marker of the block re-injected into every request of a goal. */
export const GOAL_TAG = "goal";

export interface GoalBlockState {
  objective: string;
  goalFile: string;
  status: GoalStatus;
  /** This request is the goal's last round: the budget (or the round cap) is spent. */
  wrapUp: boolean;
}

/** "Each round gets the objective and the current status re-injected in a compact [goal] block". */
export function goalBlock(state: GoalBlockState): ModelMessage {
  const status = state.status.status === "blocked" ? `blocked (${state.status.reason})` : state.status.status;
  const lines = [
    `Objective: ${state.objective}`,
    `Status: ${status}; goal file: ${modelVisiblePath(state.goalFile)}`,
    state.wrapUp
      ? "This is the last round: the goal's budget is spent. Wrap up now: record the status in the goal file and say what is done and what is left."
      : `Keep working toward the objective; when you end your turn, the next round starts. When it is achieved and checked, set \`status: complete\` in the goal file. Only if the same blocker has stopped you for ${ROUNDS_BEFORE_BLOCKED} rounds in a row, set \`status: blocked\` and a \`reason\`. Change nothing else in that file.`,
  ];
  return userText(block(GOAL_TAG, lines.join("\n")), { sender: "harness" }) as ModelMessage;
}

/** Starts the next round when the model ended its turn with the goal still active. */
export function continuationMessage(): ModelMessage {
  return userText("The goal is not complete yet. Continue with the next step.", {
    sender: "harness",
  }) as ModelMessage;
}

/** Starts the wrap-up round: "tell the model to wrap up and record status". */
export function wrapUpMessage(why: string): ModelMessage {
  return userText(
    `${why[0]?.toUpperCase() ?? ""}${why.slice(1)}. Wrap up in this round: set the status in the goal file (complete, or blocked with a reason, if either holds) and summarize what is done and what is left.`,
    { sender: "harness" },
  ) as ModelMessage;
}
