import {
  type CompleteModelPayload,
  type EventOf,
  emptyTokenCounts,
  isCompleteModelMessage,
  type OmniMessage,
  type SessionMetaPayload,
  type StopReason,
  type TokenCounts,
  type ToolCallOutputPayload,
  type ToolCallPayload,
} from "@penguin/protocol";
import { TraceError } from "./errors.js";
import { planOfRecords, type SessionPlan } from "./plan.js";

type ModelMessage = OmniMessage<CompleteModelPayload>;
type ToolCallMessage = OmniMessage<ToolCallPayload>;
type ToolOutputMessage = OmniMessage<ToolCallOutputPayload>;

/** What the last model request of the trace left unfinished, for the next run. Never traced. */
export interface CarryOver {
  /**
   * - `none`: the last request committed and every one of its tool calls has an output.
   * - `request`: the last request did not commit (no `request_end`: a crash during the model
   *   stream, or a status other than `completed`); its messages are in `droppedMessages`.
   * - `tools`: the last request committed, but some of its tool calls have no output (a crash or
   *   an interrupt while they ran); `messages` pairs them with a synthetic interrupted output.
   */
  interruption: "none" | "request" | "tools";
  /** The `request_end` status of a dropped last request; absent when it never ended. */
  requestStatus?: StopReason;
  /** Complete messages of the dropped last request, and outputs of its calls that ran, in order. */
  droppedMessages: ModelMessage[];
  /** Tool calls of the last request that got a synthetic interrupted output in `messages`. */
  interruptedToolCallIds: string[];
  /** The trailing `abort` event (no user input or request after it), if any. */
  abort?: { reason?: string };
  /** A sentence for the model or the user that says what was cut short or interrupted; absent when nothing was. */
  notice?: string;
  /**
   * Whether the engine already handed the last request back to the model: a harness carry-over
   * text (`[turn_retried]` or `[turn_aborted]`) was recorded after the last `request_begin`.
   * When a dropped request was not handed back (a crash), the resumed session must say what it did.
   */
  handedBack: boolean;
}

export interface ResumeTokens {
  /** Session totals from the last `token_usage` event (zeros when there was none). */
  session: TokenCounts;
  /** The last request's counts (drives the context-window compaction trigger). */
  lastRequest?: TokenCounts;
  sessionCostUsd?: number;
}

export interface ResumeState {
  /** The session's configuration: the latest `session_meta` (each file starts with one). */
  meta: SessionMetaPayload;
  /** The model context of committed turns only, in model-context order. */
  messages: ModelMessage[];
  carryOver: CarryOver;
  tokens: ResumeTokens;
  /** Committed model requests (turns of the agent loop) over the whole session. */
  turns: number;
  /** Committed model requests in the newest model context (since the last compaction). */
  contextTurns: number;
  /** Every traced tool call that has no `tool_call_output` record; never re-run them. */
  unansweredToolCallIds: string[];
  /** A `compaction_begin` without its `compaction_end`: the engine closes it as failed. */
  danglingCompaction: boolean;
  /** The reason and mode of that dangling compaction, for the `compaction_end` that closes it. */
  openCompaction?: { reason: CompactionReason; mode: CompactionMode };
  /** The model's latest checklist and the latest proposed plan (see plan.ts). */
  plan: SessionPlan;
}

type CompactionBegin = EventOf<"compaction_begin">;
type CompactionReason = CompactionBegin["reason"];
type CompactionMode = CompactionBegin["mode"];

/** The tags of the harness's carry-over blocks: the engine writes them as `[tag]…[/tag]` user text. */
export const CARRY_OVER_TAGS = ["turn_retried", "turn_aborted"] as const;

/** Whether a text starts with one of the carry-over blocks (an unfinished turn handed back to the model). */
export function isCarryOverText(text: string): boolean {
  return CARRY_OVER_TAGS.some((tag) => text.startsWith(`[${tag}]`));
}

function isCarryOverNote(payload: CompleteModelPayload): boolean {
  return payload.type === "text" && payload.sender === "harness" && isCarryOverText(payload.text);
}

/** The output a committed tool call gets when the trace has none (the tool is never re-run). */
export function interruptedOutputText(approved: boolean | undefined, readOnly = false): string {
  if (approved === true && readOnly) {
    return "Tool call interrupted: the session stopped while this call was running, so it has no result. It only reads, so it changed nothing; call it again if you still need its result.";
  }
  if (approved === true) {
    return "Tool call interrupted: the session stopped while this call was running, so its result is unknown and it may have had partial effects. It was not re-run.";
  }
  return "Tool call interrupted: the session stopped before this call was approved and run. It was not run.";
}

interface Slot {
  call: ToolCallMessage;
  output?: ToolOutputMessage;
}

type Entry = { message: ModelMessage } | { slot: Slot };

interface Request {
  messages: ModelMessage[];
  calls: ToolCallMessage[];
  outputs: Map<string, ToolOutputMessage>;
  /** User input recorded while the request was open (steering): it follows the request. */
  heldInput: ModelMessage[];
}

interface RequestOutcome {
  request: Request;
  committed: boolean;
  status?: StopReason;
  slots: Slot[];
}

/**
 * Rebuilds a session's model context from its trace records (see docs/sessions-and-traces.md,
 * "Commit rules"). Pure: reads nothing, writes nothing. Throws `not_a_session` when the records
 * do not start with a session_meta.
 */
export function rebuildContext(records: readonly OmniMessage[]): ResumeState {
  const own = records.filter((record) => record.origin === undefined || record.origin.length === 0);
  const first = own[0];
  if (first?.type !== "session_meta") {
    throw new TraceError("not_a_session", "a trace to resume must start with a session_meta record");
  }
  let meta = first.payload;
  let context: Entry[] = [];
  let slotsById = new Map<string, Slot>();
  let open: Request | undefined;
  let last: RequestOutcome | undefined;
  let inCompaction = false;
  let openCompaction: { reason: CompactionReason; mode: CompactionMode } | undefined;
  // A compaction's new file holds the new context first (its "seed"), then the compaction_end
  // that commits it; until then, the context from before the compaction is the one that counts.
  let seeding: { context: Entry[]; slotsById: Map<string, Slot>; contextTurns: number } | undefined;
  let turns = 0;
  let contextTurns = 0;
  let abort: { reason?: string } | undefined;
  // A carry-over note recorded since the last request began (the request was handed back).
  let handedBack = false;
  const tokens: ResumeTokens = { session: emptyTokenCounts() };
  const approvals = new Map<string, string>();
  /** Calls dispatched as read-only: cut off, they changed nothing (the journal never calls them uncertain). */
  const readOnlyCalls = new Set<string>();
  const callIds: string[] = [];
  const answered = new Set<string>();

  const flushHeld = (request: Request) => {
    for (const message of request.heldInput) context.push({ message });
  };
  const close = (request: Request, status: StopReason | undefined) => {
    const committed = status === "completed";
    const slots: Slot[] = [];
    if (committed) {
      turns++;
      contextTurns++;
      for (const message of request.messages) context.push({ message });
      for (const call of request.calls) {
        const slot: Slot = { call, output: request.outputs.get(call.payload.tool_call_id) };
        slots.push(slot);
        slotsById.set(call.payload.tool_call_id, slot);
        context.push({ slot });
      }
    }
    flushHeld(request);
    last = { request, committed, status, slots };
  };
  const closeOpen = () => {
    if (open) close(open, undefined);
    open = undefined;
  };

  for (const record of own) {
    if (record === first) continue;
    if (record.type === "session_meta") {
      // A new file: a new model context (after compaction), with the same session config.
      closeOpen();
      meta = record.payload;
      if (inCompaction) seeding = { context, slotsById, contextTurns };
      context = [];
      slotsById = new Map();
      contextTurns = 0;
      inCompaction = false;
      continue;
    }
    if (record.type === "event_msg") {
      const event = record.payload;
      switch (event.type) {
        case "token_usage":
          tokens.session = event.session;
          tokens.lastRequest = event.request;
          if (event.session_cost_usd !== undefined) tokens.sessionCostUsd = event.session_cost_usd;
          break;
        case "approval_decision":
          approvals.set(event.tool_call_id, event.decision);
          break;
        case "tool_dispatched":
          if (event.read_only === true) readOnlyCalls.add(event.tool_call_id);
          break;
        case "abort":
          abort = event.reason !== undefined ? { reason: event.reason } : {};
          break;
        case "compaction_begin":
          closeOpen();
          inCompaction = true;
          openCompaction = { reason: event.reason, mode: event.mode };
          break;
        case "compaction_end":
          if (seeding && event.status !== "completed") {
            // Closed as failed after its new file had begun (a resume after a crash): the
            // context from before it goes on.
            ({ context, slotsById, contextTurns } = seeding);
          }
          seeding = undefined;
          inCompaction = false;
          openCompaction = undefined;
          break;
        case "request_begin":
          if (inCompaction) break;
          closeOpen();
          open = { messages: [], calls: [], outputs: new Map(), heldInput: [] };
          abort = undefined;
          handedBack = false;
          break;
        case "request_end":
          if (inCompaction || !open) break;
          close(open, event.status);
          open = undefined;
          break;
      }
      continue;
    }
    if (!isCompleteModelMessage(record) || inCompaction) continue;
    if (seeding) {
      // The compacted context, as the engine wrote it: every message is context (a kept tool
      // call comes with its output).
      context.push({ message: record });
      continue;
    }
    const payload = record.payload;
    if (payload.type === "tool_call_output") {
      const output = record as ToolOutputMessage;
      const id = payload.tool_call_id;
      answered.add(id);
      const slot = slotsById.get(id);
      if (slot) {
        slot.output ??= output;
      } else if (open?.calls.some((call) => call.payload.tool_call_id === id)) {
        if (!open.outputs.has(id)) open.outputs.set(id, output);
      } else if (
        last &&
        !last.committed &&
        last.request.calls.some((call) => call.payload.tool_call_id === id)
      ) {
        if (!last.request.outputs.has(id)) last.request.outputs.set(id, output);
      }
      // Any other output has no call in the context (its request did not commit): left out.
      continue;
    }
    if (payload.role === "assistant") {
      // Assistant messages outside a request (harness notices) are not model context.
      if (!open) continue;
      open.messages.push(record);
      if (payload.type === "tool_call") {
        open.calls.push(record as ToolCallMessage);
        callIds.push(payload.tool_call_id);
      }
      continue;
    }
    // User input: text, images and data from the user (or the harness speaking as the user).
    abort = undefined;
    if (isCarryOverNote(payload)) handedBack = true;
    if (open) open.heldInput.push(record);
    else context.push({ message: record });
  }
  closeOpen();
  if (seeding) {
    // A crash while the compaction's new file was written: the context from before it counts.
    ({ context, slotsById, contextTurns } = seeding);
    inCompaction = true;
  }

  const messages: ModelMessage[] = [];
  const synthesized: string[] = [];
  for (const entry of context) {
    if ("message" in entry) {
      messages.push(entry.message);
      continue;
    }
    const { call, output } = entry.slot;
    if (output) {
      messages.push(output);
    } else {
      const id = call.payload.tool_call_id;
      synthesized.push(id);
      messages.push(syntheticOutput(call, approvals.get(id) === "allow", readOnlyCalls.has(id)));
    }
  }

  return {
    meta,
    messages,
    carryOver: carryOverOf(last, synthesized, abort, handedBack),
    tokens,
    turns,
    contextTurns,
    unansweredToolCallIds: callIds.filter((id) => !answered.has(id)),
    danglingCompaction: inCompaction,
    ...(inCompaction && openCompaction ? { openCompaction } : {}),
    plan: planOfRecords(own),
  };
}

function syntheticOutput(call: ToolCallMessage, approved: boolean, readOnly: boolean): ToolOutputMessage {
  return {
    timestamp: call.timestamp,
    type: "model_msg",
    payload: {
      type: "tool_call_output",
      role: "user",
      output: interruptedOutputText(approved, readOnly),
      tool_call_id: call.payload.tool_call_id,
      stop_reason: "aborted",
    },
  };
}

function carryOverOf(
  last: RequestOutcome | undefined,
  synthesized: string[],
  abort: { reason?: string } | undefined,
  handedBack: boolean,
): CarryOver {
  const carry: CarryOver = {
    interruption: "none",
    droppedMessages: [],
    interruptedToolCallIds: [],
    handedBack,
  };
  if (abort) carry.abort = abort;
  if (last && !last.committed) {
    carry.interruption = "request";
    if (last.status) carry.requestStatus = last.status;
    const { messages, calls, outputs } = last.request;
    carry.droppedMessages = [...messages];
    for (const call of calls) {
      const output = outputs.get(call.payload.tool_call_id);
      if (output) carry.droppedMessages.push(output);
    }
    const how = last.status ? `ended with status ${last.status}` : "was cut off before it finished";
    carry.notice = `The previous model request ${how}; its reply was not kept in the conversation.`;
  } else if (last) {
    const cut = last.slots.filter((slot) => synthesized.includes(slot.call.payload.tool_call_id));
    if (cut.length > 0) {
      carry.interruption = "tools";
      carry.interruptedToolCallIds = cut.map((slot) => slot.call.payload.tool_call_id);
      const names = cut
        .map((slot) => `${slot.call.payload.name} (${slot.call.payload.tool_call_id})`)
        .join(", ");
      carry.notice = `The session stopped while tool calls were running: ${names}. They were not re-run; their results are marked as interrupted.`;
    }
  }
  if (carry.abort && carry.notice) carry.notice = `The user interrupted the previous turn. ${carry.notice}`;
  else if (carry.abort) carry.notice = "The user interrupted the previous turn.";
  return carry;
}
