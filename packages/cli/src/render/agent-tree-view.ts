import type { AgentTreeNode, AgentTreeStatus } from "@penguin/trace";
import { truncateLine } from "./format.js";
import type { Style } from "./style.js";
import { terminalSafe } from "./terminal-text.js";

// `penguin trace --agents`: one line per agent, indented by depth, so a tree of any size reads
// at a glance: run id, named agent, status, session, messages, questions, and the task's head.

/** The task is cut to this many characters: its head tells which job it was. */
export const AGENT_TASK_MAX_CHARS = 60;

const INDENT = "  ";

const PROBLEMS: Record<NonNullable<AgentTreeNode["problem"]>, string> = {
  missing: "trace missing",
  invalid_id: "invalid session id",
  cycle: "pointers form a cycle",
};

function statusText(status: AgentTreeStatus, style: Style): string {
  switch (status) {
    case "completed":
      return style.green(status);
    case "running":
      return style.cyan(status);
    case "interrupted":
    case "aborted":
    case "unknown":
      return style.yellow(status);
    default:
      return style.red(status);
  }
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

function agentLine(node: AgentTreeNode, style: Style): string {
  const name = node.agent ? `${style.bold(node.agentRunId)} (${node.agent})` : style.bold(node.agentRunId);
  const parts = [name, statusText(node.status, style), style.dim(`session ${node.sessionId}`)];
  if (node.problem) parts.push(style.yellow(PROBLEMS[node.problem]));
  else {
    const counts = [`${node.messagesSent} sent`, `${node.messagesReceived} received`];
    if (node.questionsAsked > 0) counts.push(plural(node.questionsAsked, "question", "questions"));
    parts.push(`✉ ${counts.join(", ")}`);
  }
  if (node.task !== undefined && node.depth > 0) {
    const task = terminalSafe(node.task).replace(/\s+/g, " ").trim();
    parts.push(style.dim(truncateLine(task, AGENT_TASK_MAX_CHARS)));
  }
  return INDENT.repeat(node.depth) + parts.join(style.dim(" · "));
}

/** The tree's lines, the root first, each child under its launcher. */
export function renderAgentTree(root: AgentTreeNode, style: Style): string[] {
  const lines: string[] = [];
  const walk = (node: AgentTreeNode) => {
    lines.push(agentLine(node, style));
    for (const child of node.children) walk(child);
  };
  walk(root);
  return lines;
}
