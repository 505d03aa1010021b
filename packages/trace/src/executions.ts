import { isPayload, type OmniMessage, type StopReason } from "@penguin/protocol";
import { taskPromptText } from "./agent-trace-summary.js";
import { type AgentTreeNode, agentTree } from "./agent-tree.js";
import { type JournalEntry, toolJournal } from "./journal.js";
import type { TraceLocation } from "./location.js";

// Executions: one task of one agent of a session (the root agent or a child agent, at any depth),
// read from the traces alone. Its id is `<agent_run_id>/<task number>` (`root/2`, `sub_3/1`).
// The execution tools, the SDK and the front ends list and read retained work through these
// readers; reading never changes or resumes anything.

/**
 * - `running`: the task has no end and the process that reads it runs it.
 * - `paused`: the task was stopped (an interrupt, `stop_agent`, a limit): `task_end` `aborted`.
 * - `interrupted`: the task has no end and nothing runs it any more (the process died or was
 *   killed mid-task).
 * - `completed` / `failed`: it ended so (`failed` covers every other stop reason).
 */
export type ExecutionState = "running" | "paused" | "interrupted" | "completed" | "failed";

export const EXECUTION_STATES: readonly ExecutionState[] = [
  "running",
  "paused",
  "interrupted",
  "completed",
  "failed",
];

/** One agent of a session and its own trace's records (all files, in order). */
export interface AgentRecords {
  agentRunId: string;
  sessionId: string;
  /** Levels below the root: the root is 0. */
  depth: number;
  /** The agent run id of the agent that started it; absent for the root. */
  parent?: string;
  /** The named agent it runs. */
  agent?: string;
  records: OmniMessage[];
}

/** Where one task lies in its agent's records. */
export interface TaskSpan {
  /** 1-based, in the agent's trace. */
  number: number;
  /** Index of its first record, and one past its last. */
  from: number;
  to: number;
  prompt?: string;
  startedAt: string;
  endedAt?: string;
  status?: StopReason;
  message?: string;
}

export interface Execution {
  /** `<agentRunId>/<task>`. */
  id: string;
  agentRunId: string;
  sessionId: string;
  task: number;
  depth: number;
  parent?: string;
  agent?: string;
  state: ExecutionState;
  /** The prompt that started the task. */
  prompt?: string;
  startedAt: string;
  endedAt?: string;
  /** The time of its last record. */
  lastActivityAt: string;
  stopReason?: StopReason;
  message?: string;
  /** Model requests it made (attempts counted). */
  requests: number;
  toolCalls: number;
  /** Its tool calls that started and never reported, and nobody decided on since (see `toolJournal`). */
  uncertainCalls: number;
  /** The agent's last task: only that one can be resumed (a later task already went on from it). */
  latest: boolean;
  /** Paused or interrupted, and its agent's last task. */
  resumable: boolean;
}

export interface ExecutionFilter {
  /** Words in its prompt, messages, tool calls or outputs (case-insensitive). */
  text?: string;
  /** The named agent. */
  agent?: string;
  agentRunId?: string;
  /** An execution id (`sub_1/2`). */
  id?: string;
  state?: ExecutionState;
  /** ISO 8601: executions active at or after it. */
  since?: string;
  /** ISO 8601: executions started at or before it. */
  until?: string;
}

export interface ExecutionReadOptions {
  /**
   * When the reading process took over the session (ISO 8601): a task with no end that started
   * before it belongs to a process that is gone (`interrupted`); one that started since runs here.
   */
  liveSince: string;
}

/** A record of the agent's own (not one relayed from a child, which has an `origin`). */
export const own = (record: OmniMessage) => record.origin === undefined || record.origin.length === 0;

/**
 * The tasks of one agent's records. A task starts with its prompt (or a request with no prompt:
 * a wake turn) and ends with `task_end`; a prompt that comes while a task has no end starts a new
 * task (the process died and the session was resumed). Records copied into a new trace file by a
 * compaction never start a task.
 */
export function taskSpans(records: readonly OmniMessage[]): TaskSpan[] {
  const spans: TaskSpan[] = [];
  let open: TaskSpan | undefined;
  let compacting = false;
  records.forEach((record, index) => {
    if (!own(record)) return;
    if (record.type === "event_msg" && record.payload.type === "compaction_begin") compacting = true;
    if (record.type === "event_msg" && record.payload.type === "compaction_end") compacting = false;
    const prompt = compacting ? undefined : taskPromptText(record.payload);
    const wake =
      !open && !compacting && record.type === "event_msg" && record.payload.type === "request_begin";
    if (prompt !== undefined || wake) {
      if (open) open.to = index;
      open = { number: spans.length + 1, from: index, to: records.length, startedAt: record.timestamp };
      if (prompt !== undefined) open.prompt = prompt;
      spans.push(open);
      return;
    }
    if (open && isPayload(record, "task_end")) {
      open.to = index + 1;
      open.endedAt = record.timestamp;
      open.status = record.payload.status;
      if (record.payload.message !== undefined) open.message = record.payload.message;
      open = undefined;
    }
  });
  return spans;
}

function stateOf(span: TaskSpan, latest: boolean, options: ExecutionReadOptions): ExecutionState {
  if (span.status === "completed") return "completed";
  if (span.status === "aborted") return "paused";
  if (span.status !== undefined) return "failed";
  return latest && span.startedAt >= options.liveSince ? "running" : "interrupted";
}

/**
 * The journal entries of the tool calls among `records` (one task's own), taken from `journal`
 * (its agent's whole trace): a decision taken on a call after its task (`activity_resolved`)
 * belongs to it.
 */
export function callsAmong(
  records: readonly OmniMessage[],
  journal: readonly JournalEntry[],
): JournalEntry[] {
  const ids = new Set<string>();
  for (const record of records) if (isPayload(record, "tool_call")) ids.add(record.payload.tool_call_id);
  return journal.filter((entry) => ids.has(entry.toolCallId));
}

/** Each execution of one agent, oldest first, with its own records (what a text search looks through). */
function agentTasks(
  agent: AgentRecords,
  options: ExecutionReadOptions,
): { execution: Execution; records: OmniMessage[] }[] {
  const spans = taskSpans(agent.records);
  const journal = toolJournal(agent.records);
  return spans.map((span, i) => {
    const latest = i === spans.length - 1;
    const slice = agent.records.slice(span.from, span.to).filter(own);
    const state = stateOf(span, latest, options);
    const calls = callsAmong(slice, journal);
    const execution: Execution = {
      id: `${agent.agentRunId}/${span.number}`,
      agentRunId: agent.agentRunId,
      sessionId: agent.sessionId,
      task: span.number,
      depth: agent.depth,
      state,
      startedAt: span.startedAt,
      lastActivityAt: slice.at(-1)?.timestamp ?? span.startedAt,
      requests: slice.filter((record) => isPayload(record, "request_begin")).length,
      toolCalls: calls.length,
      uncertainCalls: state === "running" ? 0 : calls.filter((entry) => entry.uncertain).length,
      latest,
      resumable: latest && (state === "paused" || state === "interrupted"),
    };
    if (agent.parent !== undefined) execution.parent = agent.parent;
    if (agent.agent !== undefined) execution.agent = agent.agent;
    if (span.prompt !== undefined) execution.prompt = span.prompt;
    if (span.endedAt !== undefined) execution.endedAt = span.endedAt;
    if (span.status !== undefined) execution.stopReason = span.status;
    if (span.message !== undefined) execution.message = span.message;
    return { execution, records: slice };
  });
}

/** Every execution of a session's agents, in the agents' order, each agent's oldest first. */
export function listExecutions(
  agents: readonly AgentRecords[],
  options: ExecutionReadOptions,
  filter: ExecutionFilter = {},
): Execution[] {
  return agents
    .flatMap((agent) => agentTasks(agent, options))
    .filter(({ execution, records }) => matches(execution, records, filter))
    .map(({ execution }) => execution);
}

/** Whether `execution` (with its own `records`) passes `filter`. */
function matches(execution: Execution, records: readonly OmniMessage[], filter: ExecutionFilter): boolean {
  if (filter.id !== undefined && execution.id !== filter.id) return false;
  if (filter.agentRunId !== undefined && execution.agentRunId !== filter.agentRunId) return false;
  if (filter.agent !== undefined && execution.agent !== filter.agent) return false;
  if (filter.state !== undefined && execution.state !== filter.state) return false;
  if (filter.since !== undefined && (execution.endedAt ?? execution.lastActivityAt) < filter.since)
    return false;
  if (filter.until !== undefined && execution.startedAt > filter.until) return false;
  if (filter.text !== undefined && filter.text.trim() !== "") {
    const needle = filter.text.toLowerCase();
    return records.some((record) => searchableText(record).includes(needle));
  }
  return true;
}

/** The words of a record a text search looks at: messages, tool calls and their outputs. */
function searchableText(record: OmniMessage): string {
  const p = record.payload;
  if (p.type === "text") return p.text.toLowerCase();
  if (p.type === "tool_call") return `${p.name} ${p.arguments}`.toLowerCase();
  if (p.type === "tool_call_output") return p.output.toLowerCase();
  return "";
}

/**
 * The agents of the session `rootSessionId` (the root, then each child its traces point to, to any
 * depth) with their records, each trace read once (by `agentTree`). A child whose trace is missing
 * or unreadable is left out.
 */
export function sessionAgents(loc: TraceLocation, rootSessionId: string): AgentRecords[] {
  const recordsOf = new Map<string, OmniMessage[]>();
  const tree = agentTree(loc, rootSessionId, {
    onRecords: (sessionId, records) => recordsOf.set(sessionId, records),
  });
  const agents: AgentRecords[] = [];
  const walk = (node: AgentTreeNode, parent: string | undefined) => {
    const records = recordsOf.get(node.sessionId);
    if (node.problem === undefined && records !== undefined) {
      const agent: AgentRecords = {
        agentRunId: node.agentRunId,
        sessionId: node.sessionId,
        depth: node.depth,
        records,
      };
      if (parent !== undefined) agent.parent = parent;
      if (node.agent !== undefined) agent.agent = node.agent;
      agents.push(agent);
    }
    for (const child of node.children) walk(child, node.agentRunId);
  };
  walk(tree, undefined);
  return agents;
}
