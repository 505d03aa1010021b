import type { OmniMessage } from "@penguin/protocol";
import type { ToolExecutionContext, ToolResult } from "../../environment/types.js";
import { textDelta } from "../call-text.js";
import { isUserInterrupt } from "../command/call-arguments.js";
import type { Subagent } from "./subagent.js";

/** Why a call stopped following a subagent. */
export type FollowOutcome = "finished" | "window-elapsed" | "aborted";

/**
 * After a foreground interrupt, how long the call waits for the child to record its `abort` and
 * `task_end` before it returns (the Environment closes the call after its own grace anyway).
 */
export const INTERRUPT_SETTLE_MS = 500;

/**
 * Streams the child's messages into the parent (tagged with `origin`), first what waited in the
 * backlog, until the child's task has ended, the window has passed, or `signal` aborts.
 */
export async function* followSubagent(
  subagent: Subagent,
  options: { windowMs: number; signal?: AbortSignal },
): AsyncGenerator<OmniMessage, FollowOutcome> {
  const feed = subagent.subscribe();
  try {
    const deadline = Date.now() + options.windowMs;
    for (;;) {
      yield* feed.take();
      if (subagent.status !== "running") {
        yield* feed.take();
        return "finished";
      }
      if (options.signal?.aborted) return "aborted";
      const remaining = deadline - Date.now();
      if (remaining <= 0) return "window-elapsed";
      await subagent.waitForActivity(remaining, options.signal);
    }
  } finally {
    feed.close();
  }
}

/**
 * Follows the subagent for one call and returns the call's result: the final answer when the
 * task ends in the window, else the assistant text so far and a note with the subagent_id.
 * `foreground`: the call started the child's current task, so the user's interrupt stops it
 * ("aborting the parent's task interrupts foreground children"); a poll's interrupt ends only
 * the poll, as with input_command.
 */
export async function* followForCall(
  subagent: Subagent,
  ctx: ToolExecutionContext,
  options: { windowMs: number; foreground: boolean },
): AsyncGenerator<OmniMessage, ToolResult> {
  subagent.activeCalls += 1;
  subagent.touch();
  try {
    const outcome = yield* followSubagent(subagent, { windowMs: options.windowMs, signal: ctx.signal });
    if (outcome === "finished") {
      yield* textDelta(ctx.toolCallId, subagent.takeFinalOutput());
      return finishedResult(subagent);
    }
    if (outcome === "aborted" && options.foreground && ctx.signal && isUserInterrupt(ctx.signal)) {
      subagent.interrupt("the parent agent's task was interrupted");
      await subagent.settled(INTERRUPT_SETTLE_MS);
      yield* textDelta(ctx.toolCallId, subagent.takeUnread());
      return {
        stopReason: "aborted",
        note: `[interrupted: subagent ${subagent.id} was stopped; session_id=${subagent.sessionId}]`,
      };
    }
    // The window elapsed, the call timed out, or a poll was interrupted: the child keeps running.
    yield* textDelta(ctx.toolCallId, subagent.takeUnread());
    return { stopReason: "completed", note: runningNote(subagent) };
  } finally {
    subagent.activeCalls -= 1;
    subagent.touch();
  }
}

/** The result of a call on a subagent whose task has ended. */
export function finishedResult(subagent: Subagent): ToolResult {
  const task = subagent.lastTask;
  const how = task ? (task.message ? `${task.status}: ${task.message}` : task.status) : "no task has run";
  const followUp = `send a follow-up with input_subagent subagent_id=${subagent.id} and a prompt`;
  return {
    stopReason: task === undefined || task.status === "completed" ? "completed" : "failed",
    note: `[subagent ${subagent.id} finished (${how}); session_id=${subagent.sessionId}; ${followUp}]`,
  };
}

/** The note of a call that returns while the child keeps running. */
export function runningNote(subagent: Subagent): string {
  const waiting = subagent.pendingApprovals;
  const approval =
    waiting.length > 0
      ? `; waiting for an approval decision on ${waiting.map((p) => `${p.name} (tool_call_id=${p.toolCallId})`).join(", ")}`
      : "";
  return `[subagent ${subagent.id} is still running in the background${approval}; session_id=${subagent.sessionId}; use input_subagent with subagent_id=${subagent.id} to poll it]`;
}

/** The note for a child found in a resumed parent's trace that was running when its process ended. */
export function interruptedNote(subagent: Subagent): string {
  return `[subagent ${subagent.id} was interrupted: it was running when the previous process ended and was not resumed; session_id=${subagent.sessionId}; its trace keeps what it did; send a follow-up prompt with input_subagent to continue it]`;
}
