import type { OmniMessage } from "@penguin/protocol";
import type { ToolCallRedaction } from "./call-redaction.js";

/**
 * Yields the task's messages. A caller that stops reading early (a `break` in its loop)
 * interrupts the task, exactly as an abort through the signal does: the task is read on to its
 * end without yielding, so the turn is committed (or handed back), and the trace gets the
 * `abort` and `task_end` that a resume and the next run on this object both start from.
 */
export async function* readUnlessAbandoned(
  task: AsyncGenerator<OmniMessage, unknown, undefined>,
  controller: AbortController,
  redaction: ToolCallRedaction | undefined,
): AsyncGenerator<OmniMessage, void, undefined> {
  let finished = false;
  try {
    while (true) {
      const step = await task.next();
      if (step.done) {
        finished = true;
        return;
      }
      yield redaction?.apply(step.value) ?? step.value;
    }
  } finally {
    if (!finished) {
      if (!controller.signal.aborted) controller.abort(new Error("the caller stopped reading the task"));
      while (!(await task.next()).done) {
        // Recorded by the task as it goes; nobody reads the stream any more.
      }
    }
  }
}
