import type { OmniMessage } from "@penguin/protocol";

// What the Agents panel shows of a session's stream: the messages between its agents, the
// questions and their answers, and a revision that moves whenever something arrived that can
// change the tree (a launch, a child's end, a stop, a message), so the panel reloads the tree.

export type AgentMessageView =
  | { kind: "message"; key: string; from: string; to: string; text: string; delivered: boolean }
  | { kind: "question"; key: string; from: string; to: string; text: string; questionId: string }
  | { kind: "answer"; key: string; from: string; text: string; questionId: string };

export interface AgentActivity {
  messages: AgentMessageView[];
  revision: number;
}

/** Events that change an agent's place, status or counts in the tree. */
const TREE_EVENTS = new Set([
  "agent_launched",
  "agent_finished",
  "agent_stopped",
  "subagent",
  "task_end",
  "message_sent",
  "message_delivered",
  "question_asked",
  "question_answered",
]);

/**
 * The activity in `records` (the session's own and its children's, relayed with an `origin`). A
 * message is one entry however many traces mention it: its send and its delivery share an id.
 */
export function agentActivity(records: readonly OmniMessage[]): AgentActivity {
  const messages: AgentMessageView[] = [];
  const byMessageId = new Map<string, Extract<AgentMessageView, { kind: "message" }>>();
  const seenQuestions = new Set<string>();
  let revision = 0;
  for (const record of records) {
    if (record.type !== "event_msg") continue;
    const p = record.payload;
    if (!TREE_EVENTS.has(p.type)) continue;
    revision++;
    switch (p.type) {
      case "message_sent":
      case "message_delivered": {
        const known = byMessageId.get(p.message_id);
        if (known) {
          if (p.type === "message_delivered") known.delivered = true;
          break;
        }
        const view = {
          kind: "message" as const,
          key: `message:${p.message_id}`,
          from: p.from,
          to: p.to,
          text: p.text,
          delivered: p.type === "message_delivered",
        };
        byMessageId.set(p.message_id, view);
        messages.push(view);
        break;
      }
      case "question_asked":
        if (seenQuestions.has(`q:${p.question_id}`)) break;
        seenQuestions.add(`q:${p.question_id}`);
        messages.push({
          kind: "question",
          key: `question:${p.question_id}`,
          from: p.from,
          to: p.to,
          text: p.text,
          questionId: p.question_id,
        });
        break;
      case "question_answered":
        if (seenQuestions.has(`a:${p.question_id}`)) break;
        seenQuestions.add(`a:${p.question_id}`);
        messages.push({
          kind: "answer",
          key: `answer:${p.question_id}`,
          from: p.from,
          text: p.text,
          questionId: p.question_id,
        });
        break;
      default:
        break;
    }
  }
  return { messages, revision };
}

/**
 * The entries an agent took part in: messages it sent or received, questions it asked or was
 * asked, and the answers to those questions.
 */
export function activityOf(messages: readonly AgentMessageView[], agentRunId: string): AgentMessageView[] {
  const questions = new Set<string>();
  for (const m of messages) {
    if (m.kind === "question" && (m.from === agentRunId || m.to === agentRunId)) questions.add(m.questionId);
  }
  return messages.filter((m) => {
    if (m.kind === "message") return m.from === agentRunId || m.to === agentRunId;
    return questions.has(m.questionId) || m.from === agentRunId;
  });
}
