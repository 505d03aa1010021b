import type { Approver, GoalOptions, OnAsk, RunInput, Session } from "@penguin/core";
import type { GoalFinishedPayload, OmniMessage, PlanProposedPayload } from "@penguin/protocol";
import type { CliLog } from "../logging.js";
import type { TerminalRenderer } from "../render/terminal-renderer.js";

export interface TaskOptions {
  approve: Approver;
  /** Answers the agent's questions to the user (`ask`). */
  onAsk?: OnAsk;
  signal: AbortSignal;
  maxTurns?: number;
  /** Goal mode: the input is an objective worked on round after round (`penguin run --goal`). */
  goal?: GoalOptions;
  /** Print every envelope as one JSON line on stdout instead of rendering it. */
  json?: boolean;
  renderer: TerminalRenderer;
  log: CliLog;
}

export interface TaskResult {
  /** The task's `task_end` status ("completed", "aborted", …). */
  status: string;
  /** In goal mode, how the goal ended. */
  goal?: GoalFinishedPayload;
  /** In plan mode, the plan the task proposed. */
  proposed?: PlanProposedPayload;
}

/** The input of a task that carries out the session's latest proposed plan (`session.approvePlan`). */
export const APPROVED_PLAN = { approvedPlan: true } as const;

/** Runs one task of a session to its `task_end` (in goal mode, to its `goal_finished`). */
export async function runTask(
  session: Session,
  input: RunInput | typeof APPROVED_PLAN,
  opts: TaskOptions,
): Promise<TaskResult> {
  let status = "completed";
  let goal: GoalFinishedPayload | undefined;
  let proposed: PlanProposedPayload | undefined;
  opts.renderer.beginTask();
  // Loaded while the first request is on its way; awaited before the first message is rendered.
  const prepared = opts.json ? undefined : opts.renderer.prepare();
  opts.renderer.screen.start();
  try {
    const runOptions = {
      approve: opts.approve,
      ...(opts.onAsk ? { onAsk: opts.onAsk } : {}),
      signal: opts.signal,
      maxTurns: opts.maxTurns,
      ...(opts.goal ? { goal: opts.goal } : {}),
    };
    const messages: AsyncIterable<OmniMessage> =
      input === APPROVED_PLAN ? session.approvePlan(runOptions) : session.run(input as RunInput, runOptions);
    for await (const message of messages) {
      opts.log.message(message);
      // A reader that went away (stdout no longer writable) is not written to again.
      if (opts.json) {
        if (process.stdout.writable) process.stdout.write(`${JSON.stringify(message)}\n`);
      } else {
        await prepared;
        opts.renderer.render(message);
      }
      if (message.type === "event_msg" && message.payload.type === "task_end" && !message.origin?.length)
        status = message.payload.status;
      if (message.type === "event_msg" && message.payload.type === "goal_finished" && !message.origin?.length)
        goal = message.payload;
      if (message.type === "event_msg" && message.payload.type === "plan_proposed" && !message.origin?.length)
        proposed = message.payload;
    }
  } finally {
    opts.renderer.screen.stop();
  }
  return { status, ...(goal ? { goal } : {}), ...(proposed ? { proposed } : {}) };
}
