import {
  errorMessage,
  isPartialMessage,
  isPayload,
  type OmniMessage,
  requestBegin,
  requestEnd,
  type StopReason,
  toolCallOutput,
  userText,
} from "@penguin/protocol";
import { sleepUnlessAborted } from "../../models/abort.js";
import type { ModelAdapter, ModelOutcome, ModelRequest } from "../../models/types.js";
import { type RetryPolicy, retryDelay } from "../retry.js";
import type { ModelMessage } from "../types.js";
import { correctiveNoteText, extractSummary } from "./summary.js";

/** The output a tool call in a compaction reply gets: it is never run (the pairing stays whole). */
export const COMPACTION_TOOL_CALL_NOT_RUN = "Not run: a compaction request may not call tools.";

export interface SummaryRequest {
  model: ModelAdapter;
  /** The request before the summary prompt: the same system prompt, tools and context as the last one. */
  request: Omit<ModelRequest, "signal">;
  prompt: string;
  signal: AbortSignal;
  retry: RetryPolicy;
  usageEvent(outcome: ModelOutcome): OmniMessage;
  record(message: OmniMessage): void;
}

export type SummaryOutcome =
  | { ok: true; summary: string }
  | { ok: false; status: StopReason; message: string; attempts: number };

interface Attempt {
  outcome: ModelOutcome;
  text: string;
  calledTool: boolean;
}

/**
 * Asks the model for a summary of the context: the request the session would send next, with the
 * compaction prompt as one more user message, so it shares the cached prefix byte for byte. A
 * reply that fails, calls a tool, or holds no well-formed summary is a failed attempt, retried on
 * the engine's retry ladder ("shares the 5-retry ladder"); the outcome says why it gave up.
 */
export async function* requestSummary(
  options: SummaryRequest,
): AsyncGenerator<OmniMessage, SummaryOutcome, undefined> {
  const { signal } = options;
  const prompt = userText(options.prompt, { sender: "harness" }) as ModelMessage;
  let note: ModelMessage | undefined;
  for (let attempt = 1; ; attempt++) {
    if (signal.aborted) return gaveUp("aborted", "the compaction was interrupted", attempt - 1);
    const messages = [...options.request.messages, prompt, ...(note ? [note] : [])];
    const result = yield* streamAttempt(options, { ...options.request, messages }, attempt);
    const { outcome } = result;
    let problem: string | undefined;
    let summary: string | undefined;
    if (outcome.status === "completed") {
      const check = result.calledTool
        ? { ok: false as const, problem: "the reply called a tool instead of writing a summary" }
        : extractSummary(result.text);
      if (check.ok) summary = check.summary;
      else problem = check.problem;
    }
    // A reply that was no summary is retried like a malformed reply.
    const failure: ModelOutcome = problem
      ? { ...outcome, status: "malformed", errorMessage: problem }
      : outcome;
    const retryInMs =
      summary !== undefined || signal.aborted ? undefined : retryDelay(failure, attempt, options.retry);
    yield* emit(options, requestEnd(failure.status, endDetail(failure, attempt, retryInMs)));
    if (summary !== undefined) return { ok: true, summary };
    if (signal.aborted || failure.status === "aborted")
      return gaveUp("aborted", "the compaction was interrupted", attempt);
    const why = failure.errorMessage ?? failure.status;
    if (retryInMs === undefined) {
      const after = attempt > 1 ? ` after ${attempt} attempts` : "";
      return gaveUp(failure.status, `the summary request failed${after}: ${why}`, attempt);
    }
    if (problem) note = userText(correctiveNoteText(problem), { sender: "harness" }) as ModelMessage;
    if ((await sleepUnlessAborted(retryInMs, signal)) === "aborted")
      return gaveUp("aborted", "the compaction was interrupted", attempt);
  }
}

function gaveUp(status: StopReason, message: string, attempts: number): SummaryOutcome {
  return { ok: false, status, message, attempts };
}

function endDetail(outcome: ModelOutcome, attempt: number, retryInMs: number | undefined) {
  return {
    attempt,
    ...(outcome.status !== "completed" && outcome.errorMessage
      ? { error_message: outcome.errorMessage }
      : {}),
    ...(retryInMs !== undefined ? { retry_in_ms: retryInMs } : {}),
  };
}

function* emit(options: SummaryRequest, message: OmniMessage): Generator<OmniMessage, void, undefined> {
  if (!isPartialMessage(message)) options.record(message);
  yield message;
}

/** One attempt: streams the reply (its text as partial_text) and records its complete messages. */
async function* streamAttempt(
  options: SummaryRequest,
  request: Omit<ModelRequest, "signal">,
  attempt: number,
): AsyncGenerator<OmniMessage, Attempt, undefined> {
  yield* emit(options, requestBegin(attempt));
  const stream = options.model.stream({ ...request, signal: options.signal });
  const texts: string[] = [];
  let calledTool = false;
  let outcome: ModelOutcome;
  while (true) {
    let step: IteratorResult<OmniMessage, ModelOutcome>;
    try {
      step = await stream.next();
    } catch (error) {
      // The adapter contract says it never throws; should one do so, the attempt just failed.
      outcome = {
        status: "failed",
        errorMessage: `the model stream broke: ${errorMessage(error)}`,
        usage: zero(),
      };
      break;
    }
    if (step.done) {
      outcome = step.value;
      break;
    }
    const message = step.value;
    yield* emit(options, message);
    if (isPayload(message, "text") && message.payload.role === "assistant") texts.push(message.payload.text);
    if (isPayload(message, "tool_call")) {
      calledTool = true;
      yield* emit(
        options,
        toolCallOutput(message.payload.tool_call_id, COMPACTION_TOOL_CALL_NOT_RUN, "failed"),
      );
    }
  }
  yield* emit(options, options.usageEvent(outcome));
  return { outcome, text: texts.join("\n"), calledTool };
}

function zero() {
  return { cache_read: 0, cache_write: 0, output: 0, total: 0 };
}
