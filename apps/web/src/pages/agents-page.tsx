import { useEffect, useState } from "react";
import { api } from "../api/client.js";
import type { AgentSummary } from "../api/types.js";
import { ErrorText } from "../components/error-text.js";
import { hrefOf } from "../router.js";

export function AgentsPage() {
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
            <li key={agent.id}>
              <a href={hrefOf({ page: "agent", agentId: agent.id })}>{agent.name ?? agent.id}</a>
              {agent.description && <span className="muted">{agent.description}</span>}
              {agent.problem && <span className="error">{agent.problem}</span>}
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}
