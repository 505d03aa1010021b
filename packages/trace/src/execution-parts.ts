import { isPayload, type OmniMessage } from "@penguin/protocol";
import { type AgentRecords, callsAmong, type Execution, own, taskSpans } from "./executions.js";
import { type JournalEntry, toolJournal } from "./journal.js";

// The parts of one execution, each a list of short items in time order, paged: its metadata, the
// context it saved (its messages, tool calls and outputs), its activities (model requests and tool
// calls with their journal state), its events, and its inbox (messages handed to it, and for its
// last task the ones sent to it and never handed over).

export const EXECUTION_PARTS = ["metadata", "context", "activities", "events", "inbox"] as const;
export type ExecutionPart = (typeof EXECUTION_PARTS)[number];

/** One line of a part: when, what kind, and its text (clipped: see `MAX_ITEM_CHARS`). */
export interface ExecutionItem {
  at: string;
  kind: string;
  text: string;
}

export interface ExecutionPage {
  execution: Execution;
  part: ExecutionPart;
  items: ExecutionItem[];
  /** 1-based; `pages` is at least 1. */
  page: number;
  pages: number;
  /** Items of the whole part. */
  total: number;
}

/** Characters of one item's text kept; the rest is cut with a marker (a part stays bounded). */
const MAX_ITEM_CHARS = 600;
/** Items per page. */
const EXECUTION_PAGE_ITEMS = 25;

function clip(text: string): string {
  if (text.length <= MAX_ITEM_CHARS) return text;
  return `${text.slice(0, MAX_ITEM_CHARS)} [… ${text.length - MAX_ITEM_CHARS} more characters]`;
}

const item = (at: string, kind: string, text: string): ExecutionItem => ({ at, kind, text: clip(text) });

/** The records of one execution (its agent's own, from its prompt to its end). */
export function executionRecords(agent: AgentRecords, task: number): OmniMessage[] {
  const span = taskSpans(agent.records)[task - 1];
  return span ? agent.records.slice(span.from, span.to).filter(own) : [];
}

function metadataItems(execution: Execution): ExecutionItem[] {
  const at = execution.startedAt;
  const fields: [string, string | number | boolean | undefined][] = [
    ["id", execution.id],
    ["state", execution.state],
    ["agent_run_id", execution.agentRunId],
    ["session_id", execution.sessionId],
    ["agent", execution.agent],
    ["parent", execution.parent],
    ["depth", execution.depth],
    ["task", execution.task],
    ["prompt", execution.prompt],
    ["started_at", execution.startedAt],
    ["ended_at", execution.endedAt],
    ["last_activity_at", execution.lastActivityAt],
    ["stop_reason", execution.stopReason],
    ["message", execution.message],
    ["requests", execution.requests],
    ["tool_calls", execution.toolCalls],
    ["uncertain_calls", execution.uncertainCalls],
    ["resumable", execution.resumable],
  ];
  return fields
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => item(at, key, String(value)));
}

function contextItems(records: readonly OmniMessage[]): ExecutionItem[] {
  const items: ExecutionItem[] = [];
  for (const record of records) {
    const p = record.payload;
    if (p.type === "text") {
      const who = p.role === "user" ? (p.sender ?? "user") : p.role;
      items.push(item(record.timestamp, who, p.text));
    } else if (p.type === "tool_call") {
      items.push(item(record.timestamp, "tool_call", `${p.name} (${p.tool_call_id}) ${p.arguments}`));
    } else if (p.type === "tool_call_output") {
      items.push(item(record.timestamp, "tool_output", `(${p.tool_call_id}, ${p.stop_reason}) ${p.output}`));
    } else if (p.type === "image_url" || p.type === "inline_data") {
      items.push(item(record.timestamp, p.type, "[image]"));
    }
  }
  return items;
}

/**
 * The tool calls of one execution with their journal state, read from its agent's whole trace (a
 * decision taken on a call after its task belongs to it).
 */
export function executionJournal(agent: AgentRecords, task: number): JournalEntry[] {
  return callsAmong(executionRecords(agent, task), toolJournal(agent.records));
}

/** The model requests among `records`, each with how it ended, or that no end was recorded. */
function requestItems(records: readonly OmniMessage[]): ExecutionItem[] {
  const requests: { at: string; attempt: number; end?: string }[] = [];
  for (const record of records) {
    if (isPayload(record, "request_begin")) {
      requests.push({ at: record.timestamp, attempt: record.payload.attempt ?? 1 });
    } else if (isPayload(record, "request_end")) {
      const last = requests.at(-1);
      const error = record.payload.error_message ? ` (${record.payload.error_message})` : "";
      if (last && last.end === undefined) last.end = `${record.payload.status}${error}`;
    }
  }
  return requests.map(({ at, attempt, end }, i) =>
    item(
      at,
      "model_request",
      `request ${i + 1}${attempt > 1 ? ` attempt ${attempt}` : ""}: ${end ?? "no end recorded (cut off)"}`,
    ),
  );
}

function activityItems(records: readonly OmniMessage[], calls: readonly JournalEntry[]): ExecutionItem[] {
  const items = requestItems(records);
  for (const entry of calls) {
    const how = entry.stopReason ? ` (${entry.stopReason})` : "";
    const uncertain = entry.uncertain ? ", uncertain: it started and never reported" : "";
    const files = entry.files.map((f) => ` ${f.path}`).join("");
    const resolved = entry.resolution
      ? `, resolved ${entry.resolution.decision} by ${entry.resolution.by}: ${entry.resolution.evidence}`
      : "";
    const text = `${entry.name} (${entry.toolCallId}): ${entry.state}${how}${uncertain}${files ? `; files:${files}` : ""}${entry.processId ? `; process ${entry.processId}` : ""}${resolved}; arguments ${entry.arguments}`;
    items.push(item(entry.requestedAt, "tool_call", text));
  }
  return items.sort((a, b) => a.at.localeCompare(b.at));
}

function eventItems(records: readonly OmniMessage[]): ExecutionItem[] {
  return records
    .filter((record) => record.type === "event_msg")
    .map((record) => {
      const { type, ...rest } = record.payload as { type: string };
      return item(record.timestamp, type, JSON.stringify(rest));
    });
}

interface MessageFields {
  message_id: string;
  from: string;
  to: string;
  text: string;
  sent_at?: string;
}

function messageEvents(records: readonly OmniMessage[], type: string): MessageFields[] {
  return records
    .filter((record) => own(record) && record.type === "event_msg" && record.payload.type === type)
    .map((record) => record.payload as unknown as MessageFields);
}

function inboxItems(
  execution: Execution,
  agent: AgentRecords,
  records: readonly OmniMessage[],
  agents: readonly AgentRecords[],
): ExecutionItem[] {
  const items = records
    .filter((record) => record.type === "event_msg" && record.payload.type === "message_delivered")
    .map((record) => {
      const m = record.payload as unknown as MessageFields;
      return item(record.timestamp, "delivered", `[${m.message_id}] from ${m.from}: ${m.text}`);
    });
  if (!execution.latest) return items;
  const delivered = new Set(messageEvents(agent.records, "message_delivered").map((m) => m.message_id));
  for (const other of agents) {
    for (const sent of messageEvents(other.records, "message_sent")) {
      if (sent.to !== agent.agentRunId || delivered.has(sent.message_id)) continue;
      items.push(item(sent.sent_at ?? "", "pending", `[${sent.message_id}] from ${sent.from}: ${sent.text}`));
    }
  }
  return items;
}

/** The items of one part of `execution` (its agent among `agents`), every page. */
export function executionItems(
  execution: Execution,
  part: ExecutionPart,
  agents: readonly AgentRecords[],
): ExecutionItem[] {
  const agent = agents.find((a) => a.agentRunId === execution.agentRunId);
  if (!agent) return [];
  const records = executionRecords(agent, execution.task);
  switch (part) {
    case "metadata":
      return metadataItems(execution);
    case "context":
      return contextItems(records);
    case "activities":
      return activityItems(records, callsAmong(records, toolJournal(agent.records)));
    case "events":
      return eventItems(records);
    case "inbox":
      return inboxItems(execution, agent, records, agents);
  }
}

/** Page `page` (1-based; past the end: the last page) of `items`. */
export function pageItems<T>(
  items: readonly T[],
  page: number,
  size = EXECUTION_PAGE_ITEMS,
): { items: T[]; page: number; pages: number } {
  const pages = Math.max(1, Math.ceil(items.length / size));
  const at = Math.min(Math.max(1, Math.floor(page)), pages);
  return { items: items.slice((at - 1) * size, at * size), page: at, pages };
}
