import { errorMessage } from "@penguin/protocol";
import {
  type AgentRecords,
  EXECUTION_PARTS,
  type Execution,
  type ExecutionFilter,
  type ExecutionPage,
  type ExecutionPart,
  type ExecutionReadOptions,
  executionItems,
  listExecutions,
  pageItems,
} from "@penguin/trace";
import type { Approver } from "../../approval/approver.js";

// What the execution tools and the SDK read retained work through: the agents of the session's
// tree with their records, read fresh from the traces at each call, and (for an agent in a tree)
// the runtime that relaunches a child.

/** Starts a continuation task on a kept child's session; the outcome says why not. */
export type ChildRelauncher = (
  agentRunId: string,
  prompt: string,
  approve: Approver | undefined,
) => Promise<{ ok: true } | { ok: false; error: string }>;

export interface ExecutionSource {
  /** The run id of the agent that reads (`root` or `sub_N`): it may resume itself and its descendants. */
  self: string;
  /** The session's agents and the rules for reading their states, read now. */
  read(): { agents: AgentRecords[]; options: ExecutionReadOptions };
  /** Absent: this agent has no place in a tree (it cannot relaunch children). */
  relaunch?: ChildRelauncher;
}

export type ExecutionRead = ({ ok: true } & ExecutionPage) | { ok: false; error: string };

/** The session's agents and reading rules, or why the traces could not be read (never a throw). */
export function readTree(
  source: ExecutionSource,
): ({ ok: true } & ReturnType<ExecutionSource["read"]>) | { ok: false; error: string } {
  try {
    return { ok: true, ...source.read() };
  } catch (error) {
    return { ok: false, error: `the session's traces could not be read: ${errorMessage(error)}` };
  }
}

/** Every execution that passes `filter`; an unreadable session is no execution (the error is given). */
export function findExecutions(
  source: ExecutionSource,
  filter: ExecutionFilter = {},
): { ok: true; executions: Execution[] } | { ok: false; error: string } {
  const tree = readTree(source);
  if (!tree.ok) return tree;
  return { ok: true, executions: listExecutions(tree.agents, tree.options, filter) };
}

/** One page of one part of execution `id`. */
export function readExecutionPart(
  source: ExecutionSource,
  id: string,
  part: ExecutionPart = "metadata",
  page = 1,
): ExecutionRead {
  if (!(EXECUTION_PARTS as readonly string[]).includes(part)) {
    return { ok: false, error: `part must be one of ${EXECUTION_PARTS.join(", ")}; got "${part}".` };
  }
  const tree = readTree(source);
  if (!tree.ok) return tree;
  const execution = listExecutions(tree.agents, tree.options, { id })[0];
  if (!execution) return { ok: false, error: unknownExecution(id, tree.agents) };
  const items = executionItems(execution, part, tree.agents);
  return { ok: true, execution, part, total: items.length, ...pageItems(items, page) };
}

/** Why `id` names no execution, with the agents that exist. */
export function unknownExecution(id: string, agents: readonly AgentRecords[]): string {
  const names = agents.map((agent) => agent.agentRunId).join(", ");
  return `no execution "${id}" in this session. Ids are <agent_run_id>/<task number>; its agents are ${names}. search_executions lists them.`;
}

/** Whether `agentRunId` is `ancestor` or below it in the tree. */
export function isWithin(agents: readonly AgentRecords[], agentRunId: string, ancestor: string): boolean {
  const parentOf = new Map(agents.map((agent) => [agent.agentRunId, agent.parent]));
  let current: string | undefined = agentRunId;
  for (let steps = 0; current !== undefined && steps <= agents.length; steps++) {
    if (current === ancestor) return true;
    current = parentOf.get(current);
  }
  return false;
}
