import type { ApproveFn, Approver } from "../approval/approver.js";
import type { GoalOptions } from "../goal/index.js";
import type { ThinkingLevel } from "../models/types.js";
import type { OnAsk } from "../tools/messaging/index.js";

/** The options of one `Session.run`. */
export interface RunOptions {
  /**
   * Decides every tool call: one of the policies (`allowAll`, `denyAll`, `readOnly(ask)`,
   * `alwaysAsk(ask)`), any other `Approver`, or a plain callback. Without one, every call is
   * denied; a throw counts as deny.
   */
  approve?: ApproveFn | Approver;
  /** Interrupts the task: the stream and running tools stop, and the session stays resumable. */
  signal?: AbortSignal;
  /** Model requests for this task (default: the session's, else unlimited). */
  maxTurns?: number;
  /** How hard the model thinks during this task (default: the session's `thinkingLevel`). */
  thinkingLevel?: ThinkingLevel;
  /** Who wrote the input: the user (default), or the parent agent of a subagent session. */
  sender?: "user" | "parent_agent";
  /**
   * Goal mode: the input is an objective the task works on round after round until the model
   * sets it `complete` or `blocked` in the goal file (`<scratchpad>/GOAL.yaml`), its token budget
   * is spent (after one wrap-up round), or `MAX_GOAL_ROUNDS` rounds; the run ends with a
   * `goal_finished` event after its `task_end`.
   */
  goal?: GoalOptions;
  /**
   * Answers the agent's questions to the user (`ask`) during this task, instead of the session's
   * `onAsk` (see `CreateSessionOptions.onAsk`).
   */
  onAsk?: OnAsk;
}

/** Options of `Session.compact`. */
export interface CompactOptions {
  /** Interrupts the compaction: the context stays as it was. */
  signal?: AbortSignal;
}
