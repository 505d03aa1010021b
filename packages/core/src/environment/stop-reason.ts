import type { StopReason } from "@penguin/protocol";

// The stop-reason priority: how a call's close-out picks its one stop reason when several things
// ended it. "user interrupt (aborted) > timeout > the tool threw (failed) > the tool's own
// self-reported terminal state (lowest priority) > completed": a call the user interrupted is
// `aborted` even if its tool then threw or timed out, and a tool's own report counts only when
// nothing outranks it.

/** How a tool's run ended, as the Environment saw it. */
export interface RunEnding {
  interrupted: boolean;
  timedOut: boolean;
  threw: boolean;
  /** The tool's self-reported terminal state, if it returned one. */
  reported?: StopReason;
}

export function stopReasonOf(ending: RunEnding): StopReason {
  if (ending.interrupted) return "aborted";
  if (ending.timedOut) return "timeout";
  if (ending.threw) return "failed";
  return ending.reported ?? "completed";
}
