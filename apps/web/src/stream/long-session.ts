// How the timeline shows what keeps a long session going: compactions of its context and the end
// of a goal-mode run. The protocol's events are rendered as they are; nothing is decided here.

/** A compaction: open from `compaction_begin` until its `compaction_end`. */
export interface CompactionView {
  reason: string;
  mode: string;
  /** The end's status (`completed`, `failed`, `aborted`…); absent while it runs. */
  status?: string;
  /** Why it failed, as `compaction_end` said. */
  error?: string;
  /** The summary the model wrote, as far as the records carry it. */
  summary?: string;
}

/** The `goal_finished` event of a goal-mode run. */
export interface GoalView {
  outcome: string;
  rounds: number;
  tokensUsed: number;
  reason?: string;
}

type EventFields = { [field: string]: unknown };

export function compactionBegun(event: EventFields): CompactionView {
  return { reason: String(event.reason ?? ""), mode: String(event.mode ?? "") };
}

/** The summary of a compaction reply as the engine keeps it: the text inside `[summary]…[/summary]`. */
export function summaryOf(reply: string): string {
  const match = /\[summary\]([\s\S]*?)\[\/summary\]/.exec(reply);
  return (match?.[1] ?? reply).trim();
}

export function compactionEnded(view: CompactionView, event: EventFields): void {
  view.status = String(event.status ?? "");
  if (typeof event.error_message === "string") view.error = event.error_message;
}

/** Why a compaction ran, in words. */
const REASONS: Record<string, string> = {
  manual: "on request",
  context: "the context window was filling up",
  turns: "the session reached its turn limit",
};

/** One line about a compaction: running, done, or failed and why (the context stays as it was). */
export function compactionText(view: CompactionView): string {
  const why = REASONS[view.reason] ?? view.reason;
  const how = view.mode === "discard" ? "dropping the oldest turns" : "summarizing";
  if (view.status === undefined) return `Compacting the context (${why}): ${how}…`;
  if (view.status === "completed") {
    return view.mode === "discard"
      ? `Context compacted (${why}): the oldest turns were dropped`
      : `Context compacted (${why}): the conversation continues from a summary`;
  }
  const detail = view.error ? `: ${view.error}` : "";
  return `Compaction ${view.status} (${why})${detail}; the context is as it was`;
}

export function goalFinished(event: EventFields): GoalView {
  return {
    outcome: String(event.outcome ?? ""),
    rounds: typeof event.rounds === "number" ? event.rounds : 0,
    tokensUsed: typeof event.tokens_used === "number" ? event.tokens_used : 0,
    ...(typeof event.reason === "string" ? { reason: event.reason } : {}),
  };
}

const OUTCOMES: Record<string, string> = {
  complete: "Goal complete",
  blocked: "Goal blocked",
  budget_limited: "Goal stopped: its token budget is spent",
  aborted: "Goal aborted",
};

/** One line about how a goal ended, with its rounds and tokens. */
export function goalText(view: GoalView): string {
  const headline = OUTCOMES[view.outcome] ?? `Goal ${view.outcome}`;
  const rounds = view.rounds === 1 ? "1 round" : `${view.rounds} rounds`;
  const reason = view.reason ? `: ${view.reason}` : "";
  return `${headline}${reason} (${rounds}, ${view.tokensUsed.toLocaleString("en-US")} tokens)`;
}
