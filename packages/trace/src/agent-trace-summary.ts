import type { OmniMessage, SessionMetaPayload, StopReason } from "@penguin/protocol";

// What one agent's own trace says about that agent: its task, whether its last task ended, what
// it sent and was handed, and the children it started. Records relayed from a child (with an
// `origin`) belong to the child's own trace and are skipped here.

/** A child as the launcher's trace knows it: from its `subagent` pointer and `agent_launched`. */
export interface LaunchedChild {
  sessionId: string;
  agentRunId?: string;
  agent?: string;
  task?: string;
}

export interface AgentTraceSummary {
  meta?: SessionMetaPayload;
  /** The first prompt of the agent (a user's, or the launcher's for a child). */
  firstPrompt?: string;
  /** A task started (a prompt) and no `task_end` followed it. */
  unfinished: boolean;
  /** How the last task ended, when one did. */
  lastStatus?: StopReason;
  messagesSent: number;
  messagesReceived: number;
  questionsAsked: number;
  /** In the order they were first named. */
  children: LaunchedChild[];
  /** What this agent's trace recorded of its children's ends (`agent_finished`, `agent_stopped`). */
  childEnds: Map<string, "interrupted" | StopReason>;
}

/**
 * The text of a prompt that starts a task: user-role text from the user or the launcher. The
 * harness's own user-role notes (compaction summaries, goal blocks, interrupt notes) and the
 * user's steering (`[user_steering]`, handed to a running task) happen inside a task.
 */
export function taskPromptText(payload: OmniMessage["payload"]): string | undefined {
  if (payload.type !== "text" || payload.role !== "user" || payload.sender === "harness") return undefined;
  return payload.text.startsWith("[user_steering]") ? undefined : payload.text;
}

export function summarizeAgentTrace(records: Iterable<OmniMessage>): AgentTraceSummary {
  const summary: AgentTraceSummary = {
    unfinished: false,
    messagesSent: 0,
    messagesReceived: 0,
    questionsAsked: 0,
    children: [],
    childEnds: new Map(),
  };
  const bySession = new Map<string, LaunchedChild>();
  const childOf = (sessionId: string): LaunchedChild => {
    let child = bySession.get(sessionId);
    if (!child) {
      child = { sessionId };
      bySession.set(sessionId, child);
      summary.children.push(child);
    }
    return child;
  };
  for (const record of records) {
    if (record.origin !== undefined && record.origin.length > 0) continue;
    if (record.type === "session_meta") {
      summary.meta ??= record.payload;
      continue;
    }
    const p = record.payload;
    if (record.type === "model_msg") {
      const prompt = taskPromptText(p);
      if (prompt !== undefined) {
        summary.firstPrompt ??= prompt;
        summary.unfinished = true;
      }
      continue;
    }
    switch (p.type) {
      case "task_end":
        summary.unfinished = false;
        summary.lastStatus = p.status;
        break;
      case "message_sent":
        summary.messagesSent++;
        break;
      case "message_delivered":
        summary.messagesReceived++;
        break;
      case "question_asked":
        summary.questionsAsked++;
        break;
      case "subagent": {
        const child = childOf(p.session_id);
        if (p.subagent_id !== undefined) child.agentRunId ??= p.subagent_id;
        break;
      }
      case "agent_launched": {
        const child = childOf(p.session_id);
        child.agentRunId = p.agent_run_id;
        if (p.agent !== undefined) child.agent = p.agent;
        child.task = p.task;
        break;
      }
      case "agent_finished":
        summary.childEnds.set(p.agent_run_id, p.status);
        break;
      case "agent_stopped":
        for (const id of p.stopped) if (!summary.childEnds.has(id)) summary.childEnds.set(id, "aborted");
        break;
      default:
        break;
    }
  }
  return summary;
}
