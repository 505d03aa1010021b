// Named agents: the catalog a session knows (loaded at its start, added to by change_directory).

export {
  AgentCatalog,
  loadSessionAgents,
  type NamedAgentsAdded,
  type NamedAgentWarning,
  type SessionAgents,
  type WorkspaceAgentsLoad,
  workspaceAgentsWarnings,
} from "./catalog.js";
