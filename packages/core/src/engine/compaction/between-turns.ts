import type { OmniMessage } from "@penguin/protocol";
import { exceedsContextWindow, minReplyTokens } from "../limits.js";
import { type CompactionOutcome, type CompactionRun, compactContext, thresholdOf } from "./compact.js";
import { type CompactionReason, dueCompaction } from "./threshold.js";

/**
 * Compacts before the next request when a trigger asks for it: the last request reached the
 * threshold (`context`), the context ran its turns (`turns`), or the next request would not fit
 * the model's window at all (`context` too: compacting is better than stopping). Called between
 * turns, when every tool call of the last turn has its output. Undefined when nothing was due.
 */
export async function* compactIfDue(
  run: CompactionRun,
  /** The context's estimate as it stands, computed at most once a turn (the loop reuses it). */
  estimateContext: () => number,
): AsyncGenerator<OmniMessage, CompactionOutcome | undefined, undefined> {
  const reason = reasonToCompact(run, estimateContext);
  if (reason === undefined) return undefined;
  return yield* compactContext(run, reason);
}

function reasonToCompact(run: CompactionRun, estimateContext: () => number): CompactionReason | undefined {
  const { state } = run;
  const due = dueCompaction(state, run.compaction.settings, thresholdOf(run));
  if (due !== undefined || state.compactionDeferred || run.contextWindow === undefined) return due;
  // A context with no turn in it has nothing a compaction could shrink (the system prompt, the
  // tools and the user's input alone are too big): the window check stops the task instead.
  if ((state.contextTurns ?? 0) === 0) return undefined;
  return exceedsContextWindow(estimateContext(), run.contextWindow, minReplyTokens(run.maxOutputTokens))
    ? "context"
    : undefined;
}
