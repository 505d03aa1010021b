import {
  abortEvent,
  eventMsg,
  type OmniMessage,
  type StopReason,
  type ToolSpec,
  taskEnd,
  userText,
} from "@penguin/protocol";
import type { Approver } from "../approval/approver.js";
import type { ApprovalGateOptions } from "../approval/gate.js";
import { sleepUnlessAborted } from "../models/abort.js";
import type { ModelAdapter, ModelOutcome, ThinkingLevel } from "../models/types.js";
import { compactIfDue } from "./compaction/between-turns.js";
import type { CompactionHooks } from "./compaction/compact.js";
import {
  budgetHit,
  clampMaxTokens,
  contextWindowHit,
  estimateContextTokens,
  exceedsContextWindow,
  type LimitHit,
  type ModelPrices,
  maxTurnsHit,
  minReplyTokens,
  type SessionBudget,
  wallTimeHit,
} from "./limits.js";
import { flattenTurn, steeringText, turnAbortedText, turnRetriedText } from "./markers.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy, retryDelay } from "./retry.js";
import type { RoundDriver } from "./rounds.js";
import { runTurn, type TurnResult } from "./turn.js";
import type { BoundaryInput, ConversationState, ModelMessage, ToolHost } from "./types.js";
import { usageEvent } from "./usage-event.js";

/** Input queued by `session.steer` while a task runs. */
export class SteeringQueue {
  private readonly texts: string[] = [];
  push(text: string): void {
    this.texts.push(text);
  }
  get pending(): boolean {
    return this.texts.length > 0;
  }
  takeAll(): string[] {
    return this.texts.splice(0, this.texts.length);
  }
}

export interface AgentLoopOptions {
  model: ModelAdapter;
  tools: ToolHost;
  toolSpecs: ToolSpec[];
  systemPrompt: string;
  thinkingLevel: ThinkingLevel;
  state: ConversationState;
  approve: Approver | undefined;
  gate: ApprovalGateOptions;
  signal: AbortSignal;
  /** Model requests per task; undefined or <= 0: unlimited ("default -1 = unlimited"). */
  maxTurns?: number;
  /** The reply's max_tokens before clamping to the context window; undefined: provider default. */
  maxOutputTokens?: number;
  contextWindow?: number;
  prices?: ModelPrices;
  budget?: SessionBudget;
  retry?: RetryPolicy;
  steering: SteeringQueue;
  /** Notices for the model, taken at every turn boundary after steering (absent: none). */
  boundary?: BoundaryInput;
  /** Keeps the task going past the model's end of turn and adds to every request (goal mode). */
  rounds?: RoundDriver;
  /** Absent: the context is never compacted (a full window ends the task with `limit_reached`). */
  compaction?: CompactionHooks;
  record(message: OmniMessage): void;
  /** See TurnOptions.stored: awaited before each tool starts. */
  stored?: () => Promise<void>;
  /** Awaited just before `task_end` is recorded (the end of the task's commands is compared there). */
  beforeTaskEnd?: () => Promise<void>;
  now?: () => number;
}

export interface TaskOutcome {
  status: StopReason;
  message?: string;
}

/**
 * One task: the user's input, then turns until a turn has no tool call (or an interrupt, a
 * limit, or a request that cannot succeed). Every task ends with exactly one `task_end`.
 */
export async function* runTask(
  options: AgentLoopOptions,
  input: readonly ModelMessage[],
): AsyncGenerator<OmniMessage, TaskOutcome, undefined> {
  // The task's own signal: the caller's interrupt, or the wall-clock budget running out.
  const controller = new AbortController();
  const forward = () => controller.abort(options.signal.reason);
  if (options.signal.aborted) forward();
  else options.signal.addEventListener("abort", forward, { once: true });
  const timer = wallBudgetTimer(options, controller);
  try {
    return yield* runTaskUntil({ ...options, signal: controller.signal }, input, timer.hit);
  } finally {
    timer.clear();
    options.signal.removeEventListener("abort", forward);
  }
}

/**
 * "Crossing one ends the task": the wall-clock budget is not only checked between turns but
 * stops a long request or tool when it runs out, by aborting the task's signal.
 */
function wallBudgetTimer(options: AgentLoopOptions, controller: AbortController) {
  const max = options.budget?.maxWallMs;
  if (max === undefined) return { hit: () => undefined, clear: () => {} };
  let hit: LimitHit | undefined;
  const remaining = Math.max(0, max - options.state.activeMs);
  const timer = setTimeout(() => {
    hit = wallTimeHit(max, max);
    controller.abort(new Error(hit.message));
  }, remaining);
  // Never the reason a process stays alive: a task that ends clears it anyway.
  timer.unref?.();
  return { hit: () => hit, clear: () => clearTimeout(timer) };
}

async function* runTaskUntil(
  options: AgentLoopOptions,
  input: readonly ModelMessage[],
  wallBudgetHit: () => LimitHit | undefined,
): AsyncGenerator<OmniMessage, TaskOutcome, undefined> {
  const now = options.now ?? Date.now;
  const started = now();
  const { state, signal } = options;
  const policy = options.retry ?? DEFAULT_RETRY_POLICY;
  const wallMs = () => state.activeMs + (now() - started);

  function* emit(message: OmniMessage): Generator<OmniMessage, void, undefined> {
    options.record(message);
    yield message;
  }
  function* addToContext(message: ModelMessage): Generator<OmniMessage, void, undefined> {
    state.messages.push(message);
    yield* emit(message);
  }
  function* holdOverSteering(): Generator<OmniMessage, void, undefined> {
    // Steering that no request took (the task ended first) is not dropped: it joins the context
    // now, so the next run's first request delivers it, and the trace has it for a resume.
    for (const text of options.steering.takeAll()) yield* addToContext(steeringMessage(text));
  }
  async function* end(outcome: TaskOutcome): AsyncGenerator<OmniMessage, TaskOutcome, undefined> {
    yield* holdOverSteering();
    await options.beforeTaskEnd?.();
    state.activeMs += now() - started;
    yield* emit(taskEnd(outcome.status, outcome.message));
    return outcome;
  }
  async function* limit(hit: LimitHit): AsyncGenerator<OmniMessage, TaskOutcome, undefined> {
    yield* holdOverSteering();
    yield* emit(eventMsg({ type: "limit_reached", ...hit }));
    return yield* end({ status: "aborted", message: hit.message });
  }
  async function* interrupted(): AsyncGenerator<OmniMessage, TaskOutcome, undefined> {
    // The wall-clock budget aborts the signal too; then it is that limit, not the user's abort.
    const budget = wallBudgetHit();
    if (budget) return yield* limit(budget);
    yield* holdOverSteering();
    yield* emit(abortEvent(abortReason(signal)));
    return yield* end({ status: "aborted", message: "interrupted by the user" });
  }

  for (const note of state.pendingNotes.splice(0)) yield* addToContext(note);
  for (const message of input) yield* addToContext(message);
  // What the user asked in this task survives a compaction.
  state.taskInput = [...input];

  let turnsThisTask = 0;
  while (true) {
    if (signal.aborted) return yield* interrupted();
    const maxTurns = options.maxTurns ?? 0;
    if (maxTurns > 0 && turnsThisTask >= maxTurns) return yield* limit(maxTurnsHit(maxTurns));
    const spent = budgetHit(options.budget, usedSoFar(state, wallMs()));
    if (spent) return yield* limit(spent);
    const steering = options.steering.takeAll();
    for (const text of steering) {
      const message = steeringMessage(text);
      state.taskInput.push(message);
      yield* addToContext(message);
    }
    // Delivered now, not when queued: a steering message is a user message from here on.
    if (steering.length > 0) options.tools.userMessageDelivered?.();
    // Notices are data the harness quotes, not the user's words: they do not reset the write guard.
    for (const { event, message } of options.boundary?.take() ?? []) {
      yield* emit(event);
      state.taskInput.push(message);
      yield* addToContext(message);
    }
    // The context's estimate walks every message: made once a turn, and again only when a
    // compaction changed the context or the round driver adds a block to this request.
    let contextEstimate: number | undefined;
    const estimateContext = () =>
      (contextEstimate ??= estimateContextTokens(options.systemPrompt, state.messages, options.toolSpecs));
    if (options.compaction) {
      const compacted = yield* compactIfDue(
        {
          ...options,
          compaction: options.compaction,
          usageEvent: (outcome) => usageEvent(state, outcome, options.prices),
        },
        estimateContext,
      );
      if (compacted !== undefined) contextEstimate = undefined;
      if (compacted?.status === "aborted" || signal.aborted) return yield* interrupted();
    }

    // The driver's block is rebuilt per request (a retry gets the same round's), never stored.
    const firstTail = (await options.rounds?.requestTail({ attempt: 1 })) ?? [];
    const estimate =
      firstTail.length === 0
        ? estimateContext()
        : estimateContextTokens(options.systemPrompt, [...state.messages, ...firstTail], options.toolSpecs);
    const window = options.contextWindow;
    // Stop before a request the provider would refuse: it asks for at least this much reply.
    const replyTokens = minReplyTokens(options.maxOutputTokens);
    if (window !== undefined && exceedsContextWindow(estimate, window, replyTokens))
      return yield* limit(contextWindowHit(estimate, window, replyTokens));

    let attempt = 1;
    let turn: TurnResult;
    while (true) {
      const tail = attempt === 1 ? firstTail : ((await options.rounds?.requestTail({ attempt })) ?? []);
      turn = yield* runTurn({
        model: options.model,
        tools: options.tools,
        request: {
          systemPrompt: options.systemPrompt,
          messages: [...state.messages, ...tail],
          tools: options.toolSpecs,
          thinkingLevel: options.thinkingLevel,
          maxTokens: clampMaxTokens(options.maxOutputTokens, window, estimate),
        },
        attempt,
        signal,
        approve: options.approve,
        gate: options.gate,
        planRetry: (outcome) => (signal.aborted ? undefined : retryDelay(outcome, attempt, policy)),
        usageEvent: (outcome) => usageEvent(state, outcome, options.prices),
        record: options.record,
        ...(options.stored ? { stored: options.stored } : {}),
      });
      if (turn.outcome.status === "completed") break;

      const transcript = flattenTurn(attemptMessages(turn), turn.cutOffText, turn.cutOffToolCalls);
      if (signal.aborted || turn.outcome.status === "aborted") {
        // The model's reply did not commit: hand the unfinished turn back on the next run.
        const notice = wallBudgetHit()
          ? "The time budget ran out before the model's reply was complete."
          : "The user interrupted the previous turn before the model's reply was complete.";
        yield* addToContext(userText(turnAbortedText(notice, transcript), { sender: "harness" }));
        return yield* interrupted();
      }
      const reason = turn.outcome.errorMessage ?? turn.outcome.status;
      if (turn.retryInMs === undefined) {
        if (transcript) {
          const notice = `The previous model request failed (${reason}) and was not retried.`;
          yield* addToContext(userText(turnAbortedText(notice, transcript), { sender: "harness" }));
        }
        return yield* end({ status: turn.outcome.status, message: giveUpMessage(turn.outcome, attempt) });
      }
      yield* addToContext(userText(turnRetriedText(reason, transcript), { sender: "harness" }));
      if ((await sleepUnlessAborted(turn.retryInMs, signal)) === "aborted") return yield* interrupted();
      // A retry spends too: the budget is checked before each attempt, not only between turns.
      const spentOnAttempts = budgetHit(options.budget, usedSoFar(state, wallMs()));
      if (spentOnAttempts) return yield* limit(spentOnAttempts);
      attempt++;
    }

    // The reply committed: the model's messages, then every call's output in call order.
    state.turns++;
    state.contextTurns = (state.contextTurns ?? 0) + 1;
    state.lastRequestTotal = turn.outcome.usage.total;
    state.compactionDeferred = false;
    turnsThisTask++;
    for (const message of turn.modelMessages) state.messages.push(message);
    for (const call of turn.calls) {
      const output = turn.outputs.get(call.payload.tool_call_id);
      if (output) state.messages.push(output);
    }
    if (signal.aborted) return yield* interrupted();
    const idle = turn.calls.length === 0 && !options.steering.pending;
    if (options.rounds) {
      const verdict = await options.rounds.afterRound({ idle });
      if (verdict.next === "end") return yield* end({ status: "completed" });
      if (verdict.message) yield* addToContext(verdict.message);
      continue;
    }
    if (idle) return yield* end({ status: "completed" });
  }
}

/** Input given through `session.steer`, as the context has it. */
export function steeringMessage(text: string): ModelMessage {
  return userText(steeringText(text), { sender: "user" }) as ModelMessage;
}

/** What an unfinished attempt produced: its complete messages, then its calls' outputs in call order. */
function attemptMessages(turn: TurnResult): ModelMessage[] {
  const outputs = turn.calls.flatMap((call) => {
    const output = turn.outputs.get(call.payload.tool_call_id);
    return output ? [output] : [];
  });
  return [...turn.modelMessages, ...outputs];
}

function usedSoFar(state: ConversationState, wallMs: number) {
  return { tokens: state.sessionTokens.total, costUsd: state.sessionCostUsd, wallMs };
}

function giveUpMessage(outcome: ModelOutcome, attempts: number): string {
  const what = outcome.errorMessage ?? outcome.status;
  if (outcome.status === "auth") return `the provider refused the credentials: ${what}`;
  return attempts > 1
    ? `the model request failed after ${attempts} attempts: ${what}`
    : `the model request failed: ${what}`;
}

function abortReason(signal: AbortSignal): string | undefined {
  const reason: unknown = signal.reason;
  if (typeof reason === "string") return reason;
  if (reason instanceof Error && reason.name !== "AbortError") return reason.message;
  return undefined;
}
