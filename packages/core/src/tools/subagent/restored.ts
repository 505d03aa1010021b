import { isPayload, type OmniMessage, type StopReason } from "@penguin/protocol";
import type { TaskOutcome } from "./types.js";

/** A child's state as its trace tells it, for a parent session resumed from its trace. */
export interface RestoredChildState {
  status: "idle" | "interrupted";
  lastTask?: TaskOutcome;
  /** The last assistant text of the last task that ended. */
  answer?: string;
}

/**
 * Reads a child's trace: a task that ended (its `task_end` is recorded) leaves the child idle
 * with that outcome and its last assistant text; a task without a `task_end` was running when
 * the process that ran it ended, so the child is `interrupted` ("background children that were
 * running when the process died are reported as interrupted … they are not resurrected").
 */
export function restoredChildState(records: readonly OmniMessage[]): RestoredChildState {
  let inTask = false;
  let answer: string | undefined;
  let lastTask: TaskOutcome | undefined;
  let lastAnswer: string | undefined;
  for (const record of records) {
    if (record.origin !== undefined && record.origin.length > 0) continue;
    if (isPayload(record, "text")) {
      const { role, text, sender } = record.payload;
      if (role === "assistant" && text.trim() !== "") answer = text;
      // A task starts with the prompt (the parent agent's or a user's).
      if (role === "user" && !inTask && (sender === "parent_agent" || sender === "user")) {
        inTask = true;
        answer = undefined;
      }
      continue;
    }
    if (record.type === "event_msg" && record.payload.type === "request_begin") inTask = true;
    if (record.type === "event_msg" && record.payload.type === "task_end") {
      const end = record.payload as { status: StopReason; message?: string };
      lastTask = end.message ? { status: end.status, message: end.message } : { status: end.status };
      lastAnswer = answer;
      inTask = false;
    }
  }
  if (inTask) return { status: "interrupted" };
  const state: RestoredChildState = { status: "idle" };
  if (lastTask) state.lastTask = lastTask;
  if (lastAnswer !== undefined) state.answer = lastAnswer;
  return state;
}
