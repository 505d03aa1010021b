import { eventMsg, type OmniMessage, type StopReason, type ToolSpec, userText } from "@penguin/protocol";
import type { CompactionSettings } from "@penguin/state";
import type { ModelAdapter, ModelOutcome, ThinkingLevel } from "../../models/types.js";
import { clampMaxTokens, estimateContextTokens } from "../limits.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "../retry.js";
import type { ConversationState, ModelMessage } from "../types.js";
import { DISCARD_TARGET_SHARE, discardOldestTurns } from "./discard.js";
import { askOpenWork, type OpenWork } from "./open-work.js";
import { requestSummary } from "./summarize.js";
import { contextSummaryText, discardNoticeText } from "./summary.js";
import { type CompactionReason, compactionThreshold } from "./threshold.js";

/** What the session gives the engine so that it can compact: the settings and the trace's next file. */
export interface CompactionHooks {
  settings: CompactionSettings & { prompt: string };
  /**
   * Starts the next trace file ("one file = one model context") with the session's header
   * (session_meta, tool_list_ready), records it, and returns it to be streamed.
   */
  startNewContext(): OmniMessage[];
  /**
   * What is still open (running commands, subagents, the goal and plan files), named after the
   * summary of a `summarize` compaction. Absent: nothing is listed.
   */
  openWork?(): Promise<OpenWork>;
}

/** What a compaction needs of the agent loop's options (the loop passes its own). */
export interface CompactionRun {
  model: ModelAdapter;
  toolSpecs: ToolSpec[];
  systemPrompt: string;
  thinkingLevel: ThinkingLevel;
  state: ConversationState;
  signal: AbortSignal;
  maxOutputTokens?: number;
  contextWindow?: number;
  retry?: RetryPolicy;
  compaction: CompactionHooks;
  record(message: OmniMessage): void;
  usageEvent(outcome: ModelOutcome): OmniMessage;
}

export type CompactionOutcome = { status: "completed" } | { status: StopReason; message: string };

/** The threshold of a `context` compaction for this run's model and settings. */
export function thresholdOf(
  run: Pick<CompactionRun, "compaction" | "contextWindow" | "maxOutputTokens">,
): number {
  return compactionThreshold(
    run.compaction.settings.max_context_length,
    run.contextWindow,
    run.maxOutputTokens,
  );
}

/**
 * One compaction, between turns: `compaction_begin`, the new context (a summary the model writes,
 * or the context without its oldest turns), the trace's next file holding it, `compaction_end`.
 * A compaction that fails or is interrupted leaves the context exactly as it was and says why in
 * its `compaction_end`; the next trigger tries again.
 */
export async function* compactContext(
  run: CompactionRun,
  reason: CompactionReason,
): AsyncGenerator<OmniMessage, CompactionOutcome, undefined> {
  const { state } = run;
  const mode = run.compaction.settings.mode;
  function* emit(message: OmniMessage): Generator<OmniMessage, void, undefined> {
    run.record(message);
    yield message;
  }
  yield* emit(eventMsg({ type: "compaction_begin", reason, mode }));
  const planned: Planned =
    state.messages.length === 0
      ? { ok: false, status: "failed", message: "the context is empty: there is nothing to compact" }
      : mode === "summarize"
        ? yield* summarized(run)
        : discarded(run);
  if (!planned.ok) {
    // "on give-up the original context is kept and it retries at next trigger".
    state.compactionDeferred = true;
    yield* emit(
      eventMsg({
        type: "compaction_end",
        reason,
        mode,
        status: planned.status,
        error_message: planned.message,
        ...(planned.attempts ? { attempt: planned.attempts } : {}),
      }),
    );
    return { status: planned.status, message: planned.message };
  }
  for (const record of run.compaction.startNewContext()) yield record;
  for (const message of planned.context) yield* emit(message);
  state.messages = planned.context;
  state.contextTurns = 0;
  state.lastRequestTotal = undefined;
  state.compactionDeferred = false;
  yield* emit(
    eventMsg({
      type: "compaction_end",
      reason,
      mode,
      status: "completed",
      ...planned.detail,
    }),
  );
  return { status: "completed" };
}

type Planned =
  | { ok: true; context: ModelMessage[]; detail: Record<string, number> }
  | { ok: false; status: StopReason; message: string; attempts?: number };

/** The user messages of the task in progress that are still in the context: they survive a compaction. */
function taskInputInContext(state: ConversationState): ModelMessage[] {
  const inContext = new Set(state.messages);
  return (state.taskInput ?? []).filter((message) => inContext.has(message));
}

async function* summarized(run: CompactionRun): AsyncGenerator<OmniMessage, Planned, undefined> {
  const { state } = run;
  const messages = [...state.messages];
  const estimate = estimateContextTokens(run.systemPrompt, messages, run.toolSpecs);
  const outcome = yield* requestSummary({
    model: run.model,
    request: {
      systemPrompt: run.systemPrompt,
      messages,
      tools: run.toolSpecs,
      thinkingLevel: run.thinkingLevel,
      maxTokens: clampMaxTokens(run.maxOutputTokens, run.contextWindow, estimate),
    },
    prompt: run.compaction.settings.prompt,
    signal: run.signal,
    retry: run.retry ?? DEFAULT_RETRY_POLICY,
    usageEvent: run.usageEvent,
    record: run.record,
  });
  if (!outcome.ok)
    return { ok: false, status: outcome.status, message: outcome.message, attempts: outcome.attempts };
  // Asked after the summary came back: a command may have ended while the model wrote it.
  const open = await askOpenWork(run.compaction.openWork);
  const summary = userText(contextSummaryText(outcome.summary, open), { sender: "harness" }) as ModelMessage;
  return {
    ok: true,
    context: [summary, ...taskInputInContext(state)],
    detail: { messages_before: messages.length, summary_chars: outcome.summary.length },
  };
}

function discarded(run: CompactionRun): Planned {
  const { state } = run;
  const keep = new Set(taskInputInContext(state));
  const target = Math.floor(thresholdOf(run) * DISCARD_TARGET_SHARE);
  const size = (messages: readonly ModelMessage[]) =>
    estimateContextTokens(run.systemPrompt, messages, run.toolSpecs);
  const { kept, droppedTurns } = discardOldestTurns(state.messages, keep, target, size);
  if (droppedTurns === 0) {
    return {
      ok: false,
      status: "failed",
      message: "no turn could be dropped: the context holds only the task in progress",
    };
  }
  const notice = userText(discardNoticeText(droppedTurns), { sender: "harness" }) as ModelMessage;
  return {
    ok: true,
    context: [notice, ...kept],
    detail: { messages_before: state.messages.length, dropped_turns: droppedTurns },
  };
}
