import {
  type ActivityResolvedPayload,
  type FileEffect,
  isPayload,
  type OmniMessage,
  type StopReason,
} from "@penguin/protocol";

// The journal of a session's tool calls, read from its trace alone (journal-events.ts in the
// protocol names the steps). Shared by the resume notice, the execution tools, `penguin sessions
// show`, the server and the SDK: one reader, so they all call the same call uncertain.

/**
 * Where a call got to:
 * - `requested`: the model asked for it; no decision was recorded (the session stopped first).
 * - `denied`: the user, a rule or a hook refused it (or an interrupt came before the decision).
 * - `approved`: allowed, but never dispatched (the session stopped first): it did not run.
 * - `dispatched`: the tool started and no result was recorded. In a session that is running this
 *   is a call in progress; after a crash it is **uncertain** (see `uncertain`).
 * - `finished`: it ran and has its `tool_call_output` (`stopReason` says how it ended).
 */
export type JournalState = "requested" | "denied" | "approved" | "dispatched" | "finished";

export interface JournalEntry {
  toolCallId: string;
  name: string;
  /** The arguments as the model wrote them (JSON text). */
  arguments: string;
  /** When the model's call was recorded (ISO 8601). */
  requestedAt: string;
  state: JournalState;
  /** From `tool_dispatched`: the tool only reads, so an unfinished call is re-run, never uncertain. */
  readOnly: boolean;
  /** The files it was about to change, with their hashes before and after (from `tool_effect`). */
  files: FileEffect[];
  /** The command session or job it started (from `tool_effect`). */
  processId?: string;
  dispatchedAt?: string;
  finishedAt?: string;
  stopReason?: StopReason;
  /** The decision taken on it after it was found uncertain (the last one wins). */
  resolution?: JournalResolution;
  /**
   * Dispatched, not read-only, with no result and no resolution: it may or may not have had its
   * effect. Only meaningful for a session that is not running (after a crash or a kill).
   */
  uncertain: boolean;
}

/** An `activity_resolved` as the journal keeps it. */
export interface JournalResolution {
  decision: ActivityResolvedPayload["decision"];
  evidence: string;
  by: ActivityResolvedPayload["by"];
  verified?: string;
  /** When it was recorded (ISO 8601). */
  at: string;
}

/**
 * Every tool call of `records` (a session's records in order, all files) in call order, with
 * the journal steps recorded for it. Calls of child agents live in their own traces.
 */
export function toolJournal(records: readonly OmniMessage[]): JournalEntry[] {
  const byId = new Map<string, JournalEntry>();
  for (const record of records) {
    if (record.origin !== undefined && record.origin.length > 0) continue;
    if (isPayload(record, "tool_call")) {
      const id = record.payload.tool_call_id;
      if (byId.has(id)) continue;
      byId.set(id, {
        toolCallId: id,
        name: record.payload.name,
        arguments: record.payload.arguments,
        requestedAt: record.timestamp,
        state: "requested",
        readOnly: false,
        files: [],
        uncertain: false,
      });
      continue;
    }
    if (record.type !== "event_msg" && !isPayload(record, "tool_call_output")) continue;
    const entry = byId.get(toolCallIdOf(record) ?? "");
    if (!entry) continue;
    applyStep(entry, record);
  }
  const entries = [...byId.values()];
  for (const entry of entries) {
    entry.uncertain = entry.state === "dispatched" && !entry.readOnly && entry.resolution === undefined;
  }
  return entries;
}

/** The calls that are uncertain (see `JournalEntry.uncertain`), in call order. */
export function uncertainCalls(records: readonly OmniMessage[]): JournalEntry[] {
  return toolJournal(records).filter((entry) => entry.uncertain);
}

function toolCallIdOf(record: OmniMessage): string | undefined {
  if (!("tool_call_id" in record.payload)) return undefined;
  const id: unknown = record.payload.tool_call_id;
  return typeof id === "string" ? id : undefined;
}

function applyStep(entry: JournalEntry, record: OmniMessage): void {
  if (isPayload(record, "approval_decision")) {
    // A later decision never reopens a call that already ran.
    if (entry.state === "requested")
      entry.state = record.payload.decision === "allow" ? "approved" : "denied";
  } else if (isPayload(record, "tool_dispatched")) {
    if (entry.state !== "finished") entry.state = "dispatched";
    entry.dispatchedAt = record.timestamp;
    entry.readOnly = record.payload.read_only === true;
  } else if (isPayload(record, "tool_effect")) {
    if (record.payload.files) entry.files.push(...record.payload.files);
    if (record.payload.process_id !== undefined) entry.processId = record.payload.process_id;
  } else if (isPayload(record, "tool_call_output")) {
    // The first output of a call wins (as in the model context). A denied call's output is the
    // refusal: it stays denied.
    if (entry.finishedAt !== undefined) return;
    if (entry.state !== "denied") entry.state = "finished";
    entry.finishedAt = record.timestamp;
    entry.stopReason = record.payload.stop_reason;
  } else if (isPayload(record, "activity_resolved")) {
    const { decision, evidence, by, verified } = record.payload;
    entry.resolution = {
      decision,
      evidence,
      by,
      ...(verified !== undefined ? { verified } : {}),
      at: record.timestamp,
    };
  }
}
