import type { Session, SubagentInfo } from "@penguin/core";
import { type AgentTreeNode, agentTree, ROOT_AGENT_RUN_ID, type TraceLocation } from "@penguin/trace";
import { z } from "zod";

// The agents of a session for `GET /api/sessions/:id/agents`: the tree read from the traces
// (launches, tasks, message and question counts, to any depth), with the live session's
// knowledge on top while it is loaded (which tasks run now, and children whose trace has no
// pointer yet).

export const AgentRowSchema = z.object({
  agent_run_id: z.string().describe("`root` for the session's own agent, else the child's id (`sub_N`)"),
  parent: z
    .string()
    .optional()
    .describe("The agent run id of the agent that launched it; absent for the root"),
  session_id: z.string().describe("The agent's own session (its trace)"),
  depth: z.number().int().nonnegative().describe("Levels below the root: the root is 0"),
  agent: z.string().optional().describe("The named agent it runs"),
  task: z.string().optional().describe("The task it was given"),
  status: z
    .string()
    .describe(
      "How its last task ended (completed, failed, aborted, ...), running, interrupted (a task with no end that nothing runs), or unknown (trace missing)",
    ),
  messages_sent: z.number().int().nonnegative(),
  messages_received: z.number().int().nonnegative(),
  questions_asked: z.number().int().nonnegative(),
  problem: z.enum(["missing", "invalid_id", "cycle"]).optional().describe("Why its trace could not be read"),
});
export type AgentRow = z.infer<typeof AgentRowSchema>;

export const AgentListResponseSchema = z.object({
  agents: z
    .array(AgentRowSchema)
    .describe("The tree depth first: the root, then each child after its launcher"),
});

/**
 * A child as the live session lists it. The run id, session and status are always there; a
 * runtime that launches children of children also says who launched each, its depth and its
 * named agent (optional here, so either runtime's list reads).
 */
type LiveChild = SubagentInfo & { parent?: string; depth?: number; agent?: string };

/** The session's agents, depth first. `live` is the loaded session and whether its task runs. */
export function sessionAgents(
  location: TraceLocation,
  sessionId: string,
  live?: { session: Session | undefined; taskRunning: boolean },
): AgentRow[] {
  const children: LiveChild[] = live?.session?.subagents ?? [];
  const runningSessions = new Set(children.filter((c) => c.status === "running").map((c) => c.sessionId));
  if (live?.taskRunning) runningSessions.add(sessionId);
  const root = agentTree(location, sessionId, { isRunning: (id) => runningSessions.has(id) });
  const rows: AgentRow[] = [];
  const walk = (node: AgentTreeNode, parent: string | undefined) => {
    rows.push(rowOf(node, parent));
    for (const child of node.children) walk(child, node.agentRunId);
  };
  walk(root, undefined);
  // A child the live session knows but whose launcher's trace does not name yet.
  const known = new Set(rows.map((row) => row.session_id));
  for (const child of children) {
    if (known.has(child.sessionId)) continue;
    const row: AgentRow = {
      agent_run_id: child.subagentId,
      parent: child.parent ?? ROOT_AGENT_RUN_ID,
      session_id: child.sessionId,
      depth: child.depth ?? 1,
      status: child.status === "running" ? "running" : (child.lastTask?.status ?? child.status),
      messages_sent: 0,
      messages_received: 0,
      questions_asked: 0,
    };
    if (child.agent !== undefined) row.agent = child.agent;
    rows.push(row);
  }
  return rows;
}

function rowOf(node: AgentTreeNode, parent: string | undefined): AgentRow {
  const row: AgentRow = {
    agent_run_id: node.agentRunId,
    session_id: node.sessionId,
    depth: node.depth,
    status: node.status,
    messages_sent: node.messagesSent,
    messages_received: node.messagesReceived,
    questions_asked: node.questionsAsked,
  };
  if (parent !== undefined) row.parent = parent;
  if (node.agent !== undefined) row.agent = node.agent;
  if (node.task !== undefined) row.task = node.task;
  if (node.problem !== undefined) row.problem = node.problem;
  return row;
}
