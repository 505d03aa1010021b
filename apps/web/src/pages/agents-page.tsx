import { useEffect, useState } from "react";
import { api } from "../api/client.js";
import type { AgentSummary } from "../api/types.js";
import { ErrorText } from "../components/error-text.js";
import { hrefOf } from "../router.js";

/** The agents; their settings pages are for admins, so only admins get links to them. */
export function AgentsPage({ isAdmin }: { isAdmin: boolean }) {
  const [agents, setAgents] = useState<AgentSummary[]>();
  const [failure, setFailure] = useState<unknown>();
  useEffect(() => {
    api.listAgents().then(setAgents, setFailure);
  }, []);
  return (
    <div className="page">
      <section className="card">
        <h2>Agents</h2>
        <ErrorText error={failure} />
        <ul className="session-list">
          {agents?.map((agent) => (
            <li key={agent.id} data-testid="agent-row">
              {isAdmin ? (
                <a href={hrefOf({ page: "agent", agentId: agent.id })}>{agent.name ?? agent.id}</a>
              ) : (
                <strong>{agent.name ?? agent.id}</strong>
              )}
              {agent.description && <span className="muted">{agent.description}</span>}
              {agent.problem && <span className="error">{agent.problem}</span>}
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}
