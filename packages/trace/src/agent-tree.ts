import type { OmniMessage, StopReason } from "@penguin/protocol";
import { summarizeAgentTrace } from "./agent-trace-summary.js";
import { TraceError } from "./errors.js";
import { findSessionFiles, type TraceLocation } from "./location.js";
import { readTraceFile, type TraceDiagnostic } from "./reader.js";
import { assertSessionId, isValidSessionId } from "./session-id.js";

// The tree of agents of a session, read from traces alone: the root agent's trace, and each
// child's own trace found through its launcher's `subagent` pointer (and `agent_launched`), to
// any depth. Shared by `penguin trace --agents` and the server's agents route.

/** The agent run id of a session's own agent. */
export const ROOT_AGENT_RUN_ID = "root";

/**
 * How an agent's last task ended, or `running` (a task with no end yet, in a session known to be
 * running), `interrupted` (a task with no end, and nothing runs it any more), `unknown` (its
 * trace is missing and its launcher recorded no end).
 */
export type AgentTreeStatus = StopReason | "running" | "interrupted" | "unknown";

export interface AgentTreeNode {
  /** `root`, or the child's id (`sub_N`) as its launcher named it. */
  agentRunId: string;
  sessionId: string;
  /** Levels below the root: the root is 0. */
  depth: number;
  /** The named agent it runs (absent for the default agent or an inline definition). */
  agent?: string;
  /** The task it was given (its first prompt). */
  task?: string;
  status: AgentTreeStatus;
  messagesSent: number;
  messagesReceived: number;
  questionsAsked: number;
  /**
   * Why its trace could not be read: `missing` (no trace, e.g. deleted), `invalid_id` (the
   * pointer names something that is not a session id), `cycle` (already on this branch).
   */
  problem?: "missing" | "invalid_id" | "cycle";
  children: AgentTreeNode[];
}

export interface AgentTreeOptions {
  /**
   * Whether a session has a task running now (a server knows its live sessions). A task with no
   * end in a session not running is `interrupted`; without this, every such task is.
   */
  isRunning?: (sessionId: string) => boolean;
  /** Lines of the traces that were skipped or repaired. */
  onDiagnostic?: (diagnostic: TraceDiagnostic) => void;
  /** Each agent's records (all its files, in order) as the tree reads them: a caller needs no second read. */
  onRecords?: (sessionId: string, records: OmniMessage[]) => void;
}

interface Placement {
  agentRunId: string;
  depth: number;
  agent?: string;
  task?: string;
  /** What the launcher's trace recorded of this child's end. */
  endSeenByLauncher?: AgentTreeStatus;
}

/**
 * The agents of `sessionId` and of every child its traces point to, in launch order. Broken
 * pointers are reported on their node, never thrown; an invalid or unknown root id throws.
 */
export function agentTree(
  loc: TraceLocation,
  sessionId: string,
  options: AgentTreeOptions = {},
): AgentTreeNode {
  assertSessionId(sessionId);
  if (findSessionFiles(loc, sessionId).length === 0) {
    throw new TraceError("session_not_found", `session ${sessionId} has no trace under ${loc.tracesDir}`);
  }
  return visit(loc, sessionId, { agentRunId: ROOT_AGENT_RUN_ID, depth: 0 }, new Set(), options);
}

function visit(
  loc: TraceLocation,
  sessionId: string,
  placement: Placement,
  branch: ReadonlySet<string>,
  options: AgentTreeOptions,
): AgentTreeNode {
  const node: AgentTreeNode = {
    agentRunId: placement.agentRunId,
    sessionId,
    depth: placement.depth,
    status: placement.endSeenByLauncher ?? "unknown",
    messagesSent: 0,
    messagesReceived: 0,
    questionsAsked: 0,
    children: [],
  };
  if (placement.agent !== undefined) node.agent = placement.agent;
  if (placement.task !== undefined) node.task = placement.task;
  if (!isValidSessionId(sessionId)) {
    node.problem = "invalid_id";
    return node;
  }
  if (branch.has(sessionId)) {
    node.problem = "cycle";
    return node;
  }
  const files = findSessionFiles(loc, sessionId);
  if (files.length === 0) {
    node.problem = "missing";
    return node;
  }
  const records = files.flatMap((file) => {
    const { records, diagnostics } = readTraceFile(file);
    for (const d of diagnostics) options.onDiagnostic?.(d);
    return records;
  });
  options.onRecords?.(sessionId, records);
  const summary = summarizeAgentTrace(records);
  node.task ??= summary.firstPrompt;
  if (node.task === undefined) delete node.task;
  node.messagesSent = summary.messagesSent;
  node.messagesReceived = summary.messagesReceived;
  node.questionsAsked = summary.questionsAsked;
  const running = options.isRunning?.(sessionId) === true;
  if (summary.lastStatus !== undefined && !summary.unfinished) node.status = summary.lastStatus;
  else if (running) node.status = "running";
  // A task with no end that nothing runs: what its launcher recorded (a stop), else cut short.
  else node.status = placement.endSeenByLauncher ?? "interrupted";

  const nextBranch = new Set(branch).add(sessionId);
  summary.children.forEach((child, i) => {
    // A pointer without an id (older traces) still gets a name a reader can tell apart.
    const agentRunId = child.agentRunId ?? `child_${i + 1}`;
    const childPlacement: Placement = { agentRunId, depth: placement.depth + 1 };
    if (child.agent !== undefined) childPlacement.agent = child.agent;
    if (child.task !== undefined) childPlacement.task = child.task;
    const end = summary.childEnds.get(agentRunId);
    if (end !== undefined) childPlacement.endSeenByLauncher = end;
    node.children.push(visit(loc, child.sessionId, childPlacement, nextBranch, options));
  });
  return node;
}

/** Every node of a tree, depth first, the root first. */
export function flattenAgentTree(root: AgentTreeNode): AgentTreeNode[] {
  const nodes: AgentTreeNode[] = [];
  const walk = (node: AgentTreeNode) => {
    nodes.push(node);
    for (const child of node.children) walk(child);
  };
  walk(root);
  return nodes;
}
