import type { Approver, GoalOptions, OnAsk, RunInput, Session } from "@penguin/core";
import type { GoalFinishedPayload } from "@penguin/protocol";
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
}

/** Runs one task of a session to its `task_end` (in goal mode, to its `goal_finished`). */
export async function runTask(session: Session, input: RunInput, opts: TaskOptions): Promise<TaskResult> {
  let status = "completed";
  let goal: GoalFinishedPayload | undefined;
  opts.renderer.beginTask();
  // Loaded while the first request is on its way; awaited before the first message is rendered.
  const prepared = opts.json ? undefined : opts.renderer.prepare();
  opts.renderer.screen.start();
  try {
    for await (const message of session.run(input, {
      approve: opts.approve,
      ...(opts.onAsk ? { onAsk: opts.onAsk } : {}),
      signal: opts.signal,
      maxTurns: opts.maxTurns,
      ...(opts.goal ? { goal: opts.goal } : {}),
    })) {
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
    }
  } finally {
    opts.renderer.screen.stop();
  }
  return goal ? { status, goal } : { status };
}
