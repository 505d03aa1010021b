import { useEffect, useState } from "react";
import type { AgentRow } from "../api/agent-types.js";
import { api } from "../api/client.js";
import { type AgentActivity, type AgentMessageView, activityOf } from "../stream/agent-activity.js";
import { ErrorText } from "./error-text.js";
import "./agents-panel.css";

/**
 * While an agent runs, the tree is reloaded this often besides on every event that changes it:
 * a child's end may reach its trace a moment after its event reaches the stream.
 */
const RELOAD_WHILE_RUNNING_MS = 3_000;

/** The head of a task shown beside its agent; the whole task is the row's tooltip. */
const TASK_HEAD_CHARS = 90;

const head = (text: string, max: number) => {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

function tone(status: string): string {
  if (status === "completed") return "tone-good";
  if (status === "running") return "tone-live";
  if (status === "interrupted" || status === "aborted" || status === "unknown") return "tone-wait";
  return "tone-bad";
}

/**
 * A session's agents: the tree (GET /api/sessions/:id/agents), each agent's status, and the
 * messages and questions between them as the stream brought them. Shown once the session has a
 * child or an agent message; reloaded whenever the stream brings something that changes it.
 */
export function AgentsPanel({
  sessionId,
  activity,
  taskState,
}: {
  sessionId: string;
  activity: AgentActivity;
  taskState: string;
}) {
  const [agents, setAgents] = useState<AgentRow[]>([]);
  const [failure, setFailure] = useState<unknown>();
  const [tick, setTick] = useState(0);
  /** The agent whose messages are shown; all of them when none is chosen. */
  const [chosen, setChosen] = useState<string>();
  const anyRunning = agents.some((agent) => agent.status === "running");

  // Reload on a change of the stream's agent events or of the task state (and on the timer).
  // biome-ignore lint/correctness/useExhaustiveDependencies: each of these is a reason to reload.
  useEffect(() => {
    let current = true;
    api.sessionAgents(sessionId).then(
      (rows) => {
        if (!current) return;
        setAgents(rows);
        setFailure(undefined);
      },
      (error) => {
        if (current) setFailure(error);
      },
    );
    return () => {
      current = false;
    };
  }, [sessionId, activity.revision, taskState, tick]);

  useEffect(() => {
    if (!anyRunning) return;
    const timer = setInterval(() => setTick((n) => n + 1), RELOAD_WHILE_RUNNING_MS);
    return () => clearInterval(timer);
  }, [anyRunning]);

  if (agents.length <= 1 && activity.messages.length === 0 && !failure) return null;
  const shown = chosen === undefined ? activity.messages : activityOf(activity.messages, chosen);
  return (
    <section className="card agents-panel" aria-label="Agents">
      <h2>Agents</h2>
      <ErrorText error={failure} />
      <ul className="agent-tree">
        {agents.map((agent) => (
          <li
            key={`${agent.session_id}:${agent.agent_run_id}`}
            data-testid="agent-row"
            data-agent={agent.agent_run_id}
            data-status={agent.status}
            style={{ paddingLeft: `${agent.depth * 1.25}rem` }}
            title={agent.task}
          >
            <button
              type="button"
              className="agent-select"
              aria-pressed={chosen === agent.agent_run_id}
              title={`Show only the messages of ${agent.agent_run_id}`}
              onClick={() => setChosen(chosen === agent.agent_run_id ? undefined : agent.agent_run_id)}
            >
              {agent.agent_run_id}
            </button>
            {agent.agent && <span className="muted"> ({agent.agent})</span>}
            <span className={`badge ${tone(agent.status)}`}>{agent.status}</span>
            {agent.problem === "missing" && <span className="badge tone-wait">trace missing</span>}
            <span className="agent-counts muted">
              ✉ {agent.messages_sent} sent · {agent.messages_received} received
              {agent.questions_asked > 0 ? ` · ${agent.questions_asked} asked` : ""}
            </span>
            {agent.depth > 0 && agent.task && (
              <span className="agent-task muted">{head(agent.task, TASK_HEAD_CHARS)}</span>
            )}
          </li>
        ))}
      </ul>
      {chosen !== undefined && (
        <p className="muted agent-filter">
          Messages of {chosen} ·{" "}
          <button type="button" className="link" onClick={() => setChosen(undefined)}>
            show all
          </button>
        </p>
      )}
      {shown.length > 0 && (
        <ol className="agent-messages" aria-label="Messages between agents">
          {shown.map((message) => (
            <MessageLine key={message.key} message={message} />
          ))}
        </ol>
      )}
    </section>
  );
}

function MessageLine({ message }: { message: AgentMessageView }) {
  switch (message.kind) {
    case "message":
      return (
        <li data-testid="agent-message">
          <span className="agent-route">
            ✉ {message.from} → {message.to}
          </span>
          {message.delivered ? "" : <span className="badge tone-wait">not read yet</span>}
          <span className="agent-text">{message.text}</span>
        </li>
      );
    case "question":
      return (
        <li data-testid="agent-message">
          <span className="agent-route">
            ? {message.from} asks {message.to} [{message.questionId}]
          </span>
          <span className="agent-text">{message.text}</span>
        </li>
      );
    case "answer":
      return (
        <li data-testid="agent-message">
          <span className="agent-route">
            ! {message.from} answered [{message.questionId}]
          </span>
          <span className="agent-text">{message.text}</span>
        </li>
      );
  }
}
