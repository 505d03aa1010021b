import {
  approvalDecision,
  errorMessage,
  isPartialMessage,
  isPayload,
  type OmniMessage,
  requestBegin,
  requestEnd,
  toolCallOutput,
} from "@penguin/protocol";
import { interruptedOutputText } from "@penguin/trace";
import type { Approver } from "../approval/approver.js";
import { type ApprovalGateOptions, type ApprovalOutcome, decideApproval } from "../approval/gate.js";
import type { RoundCall } from "../environment/current-directory.js";
import { DENIED_NO_TERMINAL_TEXT } from "../environment/markers.js";
import type { ModelAdapter, ModelOutcome, ModelRequest } from "../models/types.js";
import { MergeQueue } from "./merge-queue.js";
import { StopPairing } from "./stop-pairing.js";
import type { ModelMessage, ToolCallMessage, ToolHost, ToolOutputMessage } from "./types.js";

export interface TurnOptions {
  model: ModelAdapter;
  tools: ToolHost;
  request: Omit<ModelRequest, "signal">;
  /** 1-based attempt of this request (retries count up). */
  attempt: number;
  /** The user's interrupt: stops the model stream, running tools and pending approvals. */
  signal: AbortSignal;
  /** Decides each tool call once (through the gate); undefined: every call is denied. */
  approve: Approver | undefined;
  gate: ApprovalGateOptions;
  /** Decides the wait before a retry (undefined: no retry) so that `request_end` can say it. */
  planRetry(outcome: ModelOutcome): number | undefined;
  /** Adds the request's usage to the session and returns the `token_usage` event. */
  usageEvent(outcome: ModelOutcome): OmniMessage;
  /** Writes a complete message or event to the trace; called as it arrives (before it is yielded). */
  record(message: OmniMessage): void;
  /**
   * Resolves once the records so far are stored wherever the trace is kept besides its file (a
   * database that another instance resumes from); a tool starts only after it has.
   */
  stored?: () => Promise<void>;
}

export interface TurnResult {
  outcome: ModelOutcome;
  retryInMs?: number;
  /** Complete messages the model produced, in stream order. */
  modelMessages: ModelMessage[];
  /** Tool calls in call order, and the one output each got. */
  calls: ToolCallMessage[];
  outputs: Map<string, ToolOutputMessage>;
  /** Text the model was streaming when the stream broke off (never completed). */
  cutOffText: string;
  /** Tool calls the model was still writing when the stream broke off: never approved or run. */
  cutOffToolCalls: CutOffToolCall[];
}

/** What a broken-off stream had written of a tool call. */
export interface CutOffToolCall {
  name: string;
  /** The arguments so far (JSON, unfinished). */
  arguments: string;
}

export const INTERRUPTED_BEFORE_DECISION = "interrupted before a decision was made";

/**
 * One model request and its tool calls. Each complete tool_call is approved as soon as it arrives
 * (one decision at a time); an approved call starts at once and runs concurrently with the
 * stream and with other calls. The model stream and every tool push into one queue; this
 * generator yields in arrival order; each complete message is recorded as it arrives. It ends
 * when the stream has ended and every call has its one output.
 */
export async function* runTurn(options: TurnOptions): AsyncGenerator<OmniMessage, TurnResult, undefined> {
  const { signal } = options;
  // Records as messages arrive: the journal's intent (`tool_call`), `tool_dispatched` and
  // `tool_effect` are in the trace before the tool acts, whatever the consumer is doing.
  // A trace that cannot be written (disk full) must fail the turn where the consumer sees it, as
  // before, not inside whichever producer happened to push.
  let recordFailure: { error: unknown } | undefined;
  const queue = new MergeQueue<OmniMessage>((message) => {
    if (recordFailure || isPartialMessage(message)) return;
    try {
      options.record(message);
    } catch (error) {
      recordFailure = { error };
    }
  });
  const result: TurnResult = {
    outcome: { status: "failed", errorMessage: "the request did not run", usage: zeroUsage() },
    modelMessages: [],
    calls: [],
    outputs: new Map(),
    cutOffText: "",
    cutOffToolCalls: [],
  };
  const answered = new Set<string>();
  const deliver = (output: ToolOutputMessage) => {
    const id = output.payload.tool_call_id;
    if (answered.has(id)) return;
    answered.add(id);
    result.outputs.set(id, output);
    queue.push(output);
  };
  const failed = (call: ToolCallMessage) => (error: unknown) => {
    deliver(toolCallOutput(call.payload.tool_call_id, `[tool error] ${errorMessage(error)}`, "failed"));
  };

  // The calls of this round, known once the model's reply has ended (change_directory waits for
  // them: it must be alone in its round).
  let endRound!: (calls: readonly RoundCall[]) => void;
  const roundCalls = new Promise<readonly RoundCall[]>((resolve) => {
    endRound = resolve;
  });
  const round = () => roundCalls;
  const callsOfRound = () =>
    result.calls.map((call) => ({ tool_call_id: call.payload.tool_call_id, name: call.payload.name }));

  let approvals: Promise<void> = Promise.resolve();
  const approveInTurn = (call: ToolCallMessage) => {
    const mine = approvals.then(() => approveAndStart(call));
    // A failure of one call (answered with a failed output) must not block the calls after it.
    approvals = mine.catch(() => undefined);
    queue.run(() => mine, failed(call));
  };

  const approveAndStart = async (call: ToolCallMessage) => {
    const decision = signal.aborted ? interruptedDecision() : await decideOrInterrupt(call, options, signal);
    for (const hookEvent of decision.events ?? []) queue.push(hookEvent);
    const event = approvalDecision(
      call.payload.tool_call_id,
      decision.decision,
      decision.source,
      decision.reason,
    );
    // A rule the human granted is recorded with the decision, so a resumed session keeps it.
    queue.push(
      decision.rule ? { ...event, payload: { ...event.payload, session_rule: decision.rule } } : event,
    );
    if (decision.reason === INTERRUPTED_BEFORE_DECISION) {
      deliver(toolCallOutput(call.payload.tool_call_id, interruptedOutputText(false), "aborted"));
      return;
    }
    if (decision.decision !== "allow") {
      deliver(deniedOutput(options.tools, call, decision));
      return;
    }
    queue.run(async () => {
      const framed = new StopPairing((message) => {
        if (isPayload(message, "tool_call_output") && message.origin === undefined) {
          deliver(message as ToolOutputMessage);
        } else {
          queue.push(message);
        }
      });
      try {
        for await (const message of options.tools.executeTool(call, {
          signal,
          approve: options.approve,
          round,
          journal: (message) => {
            queue.push(message);
            return options.stored?.();
          },
        })) {
          framed.push(message);
        }
      } finally {
        framed.end();
      }
      if (!answered.has(call.payload.tool_call_id)) {
        deliver(
          toolCallOutput(
            call.payload.tool_call_id,
            "[tool error] the tool ended without an output",
            "failed",
          ),
        );
      }
    }, failed(call));
  };

  queue.run(
    async () => {
      queue.push(requestBegin(options.attempt));
      const outcome = await streamModel(options, queue, result, approveInTurn);
      endRound(callsOfRound());
      result.outcome = outcome;
      result.retryInMs = options.planRetry(outcome);
      queue.push(options.usageEvent(outcome));
      const detail: { error_message?: string; attempt: number; retry_in_ms?: number } = {
        attempt: options.attempt,
      };
      if (outcome.status !== "completed" && outcome.errorMessage) detail.error_message = outcome.errorMessage;
      if (result.retryInMs !== undefined) detail.retry_in_ms = result.retryInMs;
      queue.push(requestEnd(outcome.status, detail));
      queue.close();
    },
    (error) => {
      // The adapter contract says it never throws; should one do so, the queue must still end.
      endRound(callsOfRound());
      result.outcome = {
        status: "failed",
        errorMessage: `the model adapter threw: ${errorMessage(error)}`,
        usage: zeroUsage(),
      };
      queue.close();
    },
  );

  for await (const message of queue.drain()) {
    if (recordFailure) throw recordFailure.error;
    yield message;
  }
  if (recordFailure) throw recordFailure.error;
  return result;
}

async function streamModel(
  options: TurnOptions,
  queue: MergeQueue<OmniMessage>,
  result: TurnResult,
  onToolCall: (call: ToolCallMessage) => void,
): Promise<ModelOutcome> {
  const stream = options.model.stream({ ...options.request, signal: options.signal });
  const framed = new StopPairing((message) => queue.push(message));
  let partial = "";
  // Calls being written, by id, until their complete tool_call arrives.
  const writing = new Map<string, CutOffToolCall>();
  const cutOff = () => {
    result.cutOffText = partial;
    result.cutOffToolCalls = [...writing.values()];
  };
  while (true) {
    let step: IteratorResult<OmniMessage, ModelOutcome>;
    try {
      step = await stream.next();
    } catch (error) {
      framed.end();
      cutOff();
      return {
        status: "failed",
        errorMessage: `the model stream broke: ${errorMessage(error)}`,
        usage: zeroUsage(),
      };
    }
    if (step.done) {
      framed.end();
      cutOff();
      return step.value;
    }
    const message = step.value;
    framed.push(message);
    if (isPayload(message, "partial_text")) {
      partial = message.payload.event_type === "start" ? "" : partial + message.payload.text;
    } else if (isPayload(message, "partial_tool_call")) {
      const { tool_call_id: id, event_type, name } = message.payload;
      const call = event_type === "start" ? undefined : writing.get(id);
      writing.set(id, {
        name: name ?? call?.name ?? "",
        arguments: (call?.arguments ?? "") + message.payload.arguments,
      });
    } else if (message.type === "model_msg" && !isPartialMessage(message)) {
      if (isPayload(message, "text")) partial = "";
      result.modelMessages.push(message as ModelMessage);
      if (isPayload(message, "tool_call")) {
        writing.delete(message.payload.tool_call_id);
        result.calls.push(message as ToolCallMessage);
        onToolCall(message as ToolCallMessage);
      }
    }
  }
}

function interruptedDecision(): ApprovalOutcome {
  return {
    decision: "deny",
    source: { kind: "default", name: "interrupt" },
    reason: INTERRUPTED_BEFORE_DECISION,
  };
}

/** A decision, or an interrupt while it is pending (a human may never answer). */
async function decideOrInterrupt(
  call: ToolCallMessage,
  options: TurnOptions,
  signal: AbortSignal,
): Promise<ApprovalOutcome> {
  let onAbort: (() => void) | undefined;
  const interrupted = new Promise<ApprovalOutcome>((resolve) => {
    onAbort = () => resolve(interruptedDecision());
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([decideApproval(call, options.approve, options.gate, signal), interrupted]);
  } finally {
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}

function deniedOutput(tools: ToolHost, call: ToolCallMessage, decision: ApprovalOutcome): ToolOutputMessage {
  if (decision.source.kind === "hook") {
    // "may deny it, with a reason the model reads".
    const output = tools.deniedOutput(call, "policy");
    const by = decision.source.name ? ` ${decision.source.name}` : "";
    const text = `Tool call denied by hook${by}: ${decision.reason ?? "no reason given"}`;
    return { ...output, payload: { ...output.payload, output: text } };
  }
  if (decision.source.kind === "no_terminal") {
    // Not "denied by user": nobody refused it; the model should not read it as a person's wish.
    const output = tools.deniedOutput(call, "policy");
    const why = decision.reason ? ` (${decision.reason})` : "";
    return { ...output, payload: { ...output.payload, output: `${DENIED_NO_TERMINAL_TEXT}${why}` } };
  }
  if (
    decision.decision === "forbidden" ||
    (decision.source.kind === "mode" && decision.source.name === "plan")
  ) {
    // The guardrail's rule, or plan mode's "write the plan as your answer": the model reads why.
    const output = tools.deniedOutput(call, "policy");
    return {
      ...output,
      payload: { ...output.payload, output: `${output.payload.output} ${decision.reason ?? ""}`.trim() },
    };
  }
  const byPerson = decision.source.kind === "human" || decision.source.kind === "callback";
  const output = tools.deniedOutput(call, byPerson ? "user" : "policy");
  if (!byPerson || !decision.reason) return output;
  // "deny (with an optional reason the model reads)": the person's words, after the marker text.
  return {
    ...output,
    payload: { ...output.payload, output: `${output.payload.output} Reason: ${decision.reason}` },
  };
}

function zeroUsage() {
  return { cache_read: 0, cache_write: 0, output: 0, total: 0 };
}
