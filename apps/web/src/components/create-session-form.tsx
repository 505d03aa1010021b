import { type FormEvent, useEffect, useId, useState } from "react";
import { api } from "../api/client.js";
import {
  type AgentSummary,
  APPROVAL_MODES,
  type ModelChoice,
  type SessionApprovalMode,
} from "../api/types.js";
import { navigate } from "../router.js";
import { ErrorText } from "./error-text.js";
import { FolderPicker } from "./folder-picker.js";
import { ProfileSelect } from "./profile-select.js";

/**
 * The form that creates a session. It shows the server's workspace roots and a folder picker
 * inside them, and offers the project's models and the agents as suggestions (free text is still
 * taken); the workspace starts at the first root, the model at the project's default and the
 * agent at "default"; the execution profile at the agent's default.
 */
export function CreateSessionForm() {
  const [roots, setRoots] = useState<string[]>([]);
  const [models, setModels] = useState<ModelChoice[]>([]);
  const [agents, setAgents] = useState<AgentSummary[]>([]);
  const [workspace, setWorkspace] = useState("");
  const [title, setTitle] = useState("");
  const [model, setModel] = useState("");
  const [agentId, setAgentId] = useState("default");
  const [mode, setMode] = useState<SessionApprovalMode | "">("");
  const [profile, setProfile] = useState("");
  const [picking, setPicking] = useState(false);
  const [failure, setFailure] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const modelListId = useId();
  const agentListId = useId();

  useEffect(() => {
    // Each suggestion list is a help, not a need: the form works without any of them.
    void api
      .workspaceRoots()
      .then((found) => {
        setRoots(found);
        setWorkspace((current) => current || (found[0] ?? ""));
      })
      .catch(() => undefined);
    void api
      .listModels()
      .then((list) => {
        setModels(list.models);
        setModel((current) => current || (list.default_model ?? ""));
      })
      .catch(() => undefined);
    void api
      .listAgents()
      .then(setAgents)
      .catch(() => undefined);
  }, []);

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
        ...(profile ? { execution_profile: profile } : {}),
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
      {roots.length > 0 && (
        <p className="muted" data-testid="workspace-roots">
          Workspaces may be in:{" "}
          {roots.map((root) => (
            <code key={root}>{root}</code>
          ))}
        </p>
      )}
      <div className="grid">
        <div className="workspace-field">
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
          <button type="button" aria-expanded={picking} onClick={() => setPicking((open) => !open)}>
            Browse folders
          </button>
        </div>
        <label>
          Title
          <input
            name="title"
            placeholder="default: the first line of the first message"
            value={title}
            onChange={(e) => setTitle(e.target.value)}
          />
        </label>
        <label>
          Model
          <input
            name="model"
            list={modelListId}
            placeholder="provider/model-id (default: the project's)"
            value={model}
            onChange={(e) => setModel(e.target.value)}
          />
        </label>
        <datalist id={modelListId}>
          {models.map((choice) => (
            <option key={choice.ref} value={choice.ref}>
              {choice.name ?? choice.ref}
            </option>
          ))}
        </datalist>
        <label>
          Agent
          <input
            name="agent_id"
            list={agentListId}
            placeholder="default"
            value={agentId}
            onChange={(e) => setAgentId(e.target.value)}
          />
        </label>
        <datalist id={agentListId}>
          {agents.map((agent) => (
            <option key={agent.id} value={agent.id}>
              {agent.name ?? agent.id}
            </option>
          ))}
        </datalist>
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
        <ProfileSelect agentId={agentId} value={profile} onChange={setProfile} />
      </div>
      {picking && (
        <FolderPicker
          roots={roots}
          start={workspace.trim() || undefined}
          onChoose={(path) => {
            setWorkspace(path);
            setPicking(false);
          }}
          onClose={() => setPicking(false)}
        />
      )}
      <ErrorText error={failure} />
      <button type="submit" disabled={busy}>
        Create session
      </button>
    </form>
  );
}
