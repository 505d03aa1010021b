import { type FormEvent, useCallback, useEffect, useState } from "react";
import { api } from "../api/client.js";
import { APPROVAL_MODES, type Session, type SessionApprovalMode } from "../api/types.js";
import { ErrorText } from "../components/error-text.js";
import { hrefOf, navigate } from "../router.js";

/** The caller's sessions, newest first, and the form that creates one. */
export function SessionsPage() {
  const [sessions, setSessions] = useState<Session[]>();
  const [failure, setFailure] = useState<unknown>();

  const load = useCallback(async () => {
    try {
      setSessions(await api.listSessions());
    } catch (caught) {
      setFailure(caught);
    }
  }, []);
  useEffect(() => {
    void load();
  }, [load]);

  return (
    <div className="page">
      <CreateSessionForm />
      <section>
        <h2>Sessions</h2>
        <ErrorText error={failure} />
        {sessions === undefined ? (
          <p className="muted">Loading…</p>
        ) : sessions.length === 0 ? (
          <p className="muted">No sessions yet.</p>
        ) : (
          <ul className="session-list">
            {sessions.map((session) => (
              <li key={session.id} data-testid="session-row" data-session-id={session.id}>
                <a href={hrefOf({ page: "chat", sessionId: session.id })}>{session.title || session.id}</a>
                <span className={`badge state-${session.state}`}>{session.state}</span>
                <span className="muted">
                  {session.workspace} · {session.provider}/{session.model_id} · {session.approval_mode}
                </span>
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}

function CreateSessionForm() {
  const [workspace, setWorkspace] = useState("");
  const [title, setTitle] = useState("");
  const [model, setModel] = useState("");
  const [agentId, setAgentId] = useState("");
  const [mode, setMode] = useState<SessionApprovalMode | "">("");
  const [failure, setFailure] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setFailure(undefined);
    try {
      const session = await api.createSession({
        workspace: workspace.trim(),
        ...(title.trim() ? { title: title.trim() } : {}),
        ...(model.trim() ? { model: model.trim() } : {}),
        ...(agentId.trim() ? { agent_id: agentId.trim() } : {}),
        ...(mode ? { approval_mode: mode } : {}),
      });
      navigate({ page: "chat", sessionId: session.id });
    } catch (caught) {
      setFailure(caught);
      setBusy(false);
    }
  };

  return (
    <form className="card" onSubmit={submit} aria-label="New session">
      <h2>New session</h2>
      <div className="grid">
        <label>
          Workspace folder
          <input
            name="workspace"
            placeholder="/home/me/project"
            value={workspace}
            onChange={(e) => setWorkspace(e.target.value)}
            required
          />
        </label>
        <label>
          Title
          <input name="title" value={title} onChange={(e) => setTitle(e.target.value)} />
        </label>
        <label>
          Model
          <input
            name="model"
            placeholder="provider/model-id (default: the project's)"
            value={model}
            onChange={(e) => setModel(e.target.value)}
          />
        </label>
        <label>
          Agent
          <input
            name="agent_id"
            placeholder="default"
            value={agentId}
            onChange={(e) => setAgentId(e.target.value)}
          />
        </label>
        <label>
          Approval mode
          <select
            name="approval_mode"
            value={mode}
            onChange={(e) => setMode(e.target.value as SessionApprovalMode | "")}
          >
            <option value="">the agent's default</option>
            {APPROVAL_MODES.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </label>
      </div>
      <ErrorText error={failure} />
      <button type="submit" disabled={busy}>
        Create session
      </button>
    </form>
  );
}
