import type { AgentRow } from "./agent-types.js";
import type { RecordedDecision, RecoveryView } from "./recovery-types.js";
import type {
  AgentConfig,
  AgentSummary,
  ApprovalAnswer,
  AuditEntry,
  CreateSessionRequest,
  ErrorBody,
  ExecutionMode,
  ExecutionProfileList,
  FolderListing,
  GoalRequest,
  MessagesResponse,
  ModelList,
  PendingApproval,
  RevertResult,
  Session,
  SessionApprovalMode,
  SessionListItem,
  TaskState,
  TraceResponse,
  User,
} from "./types.js";

/** An answer that was not 2xx, with the server's error body. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(body.message ?? body.error);
    this.name = "ApiError";
  }

  get code(): string {
    return this.body.error;
  }
}

/** Called on every 401, so the app can show the login page whatever page asked. */
let onUnauthorized: () => void = () => {};
export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

export async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  // The session cookie is HttpOnly and same-origin; the browser adds the Origin header the
  // server's CSRF check wants on every change.
  const init: RequestInit = { method, credentials: "same-origin", headers: { accept: "application/json" } };
  if (body !== undefined) {
    init.headers = { ...init.headers, "content-type": "application/json" };
    init.body = JSON.stringify(body);
  }
  let response: Response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    throw new ApiError(0, { error: "network_error", message: `the server cannot be reached (${error})` });
  }
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  let json: unknown;
  try {
    json = text === "" ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (!response.ok) {
    const errorBody =
      json && typeof json === "object" && "error" in json
        ? (json as ErrorBody)
        : { error: "http_error", message: `${response.status} ${response.statusText}` };
    if (response.status === 401 && path !== "/api/auth/login") onUnauthorized();
    throw new ApiError(response.status, errorBody);
  }
  return json as T;
}

const enc = encodeURIComponent;
const sessionPath = (id: string) => `/api/sessions/${enc(id)}`;

/** The server's JSON API, one function per route the app uses. */
export const api = {
  me: () => request<{ user: User }>("GET", "/api/auth/me").then((r) => r.user),
  login: (username: string, password: string) =>
    request<{ user: User }>("POST", "/api/auth/login", { username, password }).then((r) => r.user),
  logout: () => request<void>("POST", "/api/auth/logout"),
  changePassword: (currentPassword: string, newPassword: string) =>
    request<void>("POST", "/api/auth/password", {
      current_password: currentPassword,
      new_password: newPassword,
    }),

  listSessions: () =>
    request<{ sessions: SessionListItem[] }>("GET", "/api/sessions").then((r) => r.sessions),
  createSession: (body: CreateSessionRequest) =>
    request<{ session: Session }>("POST", "/api/sessions", body).then((r) => r.session),
  getSession: (id: string) => request<{ session: Session }>("GET", sessionPath(id)).then((r) => r.session),
  setApprovalMode: (id: string, mode: SessionApprovalMode) =>
    request<{ session: Session }>("PATCH", sessionPath(id), { approval_mode: mode }).then((r) => r.session),
  renameSession: (id: string, title: string) =>
    request<{ session: Session }>("PATCH", sessionPath(id), { title }).then((r) => r.session),
  deleteSession: (id: string) => request<void>("DELETE", sessionPath(id)),
  /** The download URL of a session's trace export (a same-origin link sends the cookie). */
  exportUrl: (id: string) => `${sessionPath(id)}/export`,
  /** Imports a session export (its text); answers the new session and the id the export carried. */
  importSession: (trace: string) =>
    request<{ session: Session; original_id: string }>("POST", "/api/sessions/import", { trace }),
  workspaceRoots: () => request<{ roots: string[] }>("GET", "/api/workspace/roots").then((r) => r.roots),
  listFolders: (path: string) => request<FolderListing>("GET", `/api/workspace/folders?path=${enc(path)}`),
  listModels: () => request<ModelList>("GET", "/api/models"),
  listExecutionProfiles: (agentId: string) =>
    request<ExecutionProfileList>("GET", `/api/execution-profiles?agent_id=${enc(agentId)}`),

  startTask: (id: string, input: string, goal?: GoalRequest, images: string[] = []) =>
    request<{ session_id: string; task_state: TaskState }>("POST", `${sessionPath(id)}/tasks`, {
      input,
      ...(images.length > 0 ? { images } : {}),
      ...(goal ? { goal } : {}),
    }),
  /** Carries out the plan the session proposed in plan mode, switching the session to `mode`. */
  approvePlan: (id: string, mode: ExecutionMode) =>
    request<{ session: Session; task_state: TaskState }>("POST", `${sessionPath(id)}/plan/approve`, { mode }),
  compact: (id: string) =>
    request<{ session_id: string; task_state: TaskState }>("POST", `${sessionPath(id)}/compact`),
  steer: (id: string, input: string) =>
    request<{ task_state: TaskState }>("POST", `${sessionPath(id)}/steer`, { input }),
  abort: (id: string) =>
    request<{ aborted: boolean; task_state: TaskState }>("POST", `${sessionPath(id)}/abort`),

  pendingApprovals: (id: string) =>
    request<{ approvals: PendingApproval[] }>("GET", `${sessionPath(id)}/approvals`).then((r) => r.approvals),
  decide: (id: string, toolCallId: string, answer: ApprovalAnswer) =>
    request<{ tool_call_id: string; decision: string }>(
      "POST",
      `${sessionPath(id)}/approvals/${enc(toolCallId)}`,
      answer,
    ),
  answerQuestion: (id: string, questionId: string, text: string) =>
    request<{ question_id: string; text: string }>(
      "POST",
      `${sessionPath(id)}/questions/${enc(questionId)}/answer`,
      { text },
    ),
  messages: (id: string) => request<MessagesResponse>("GET", `${sessionPath(id)}/messages`),
  trace: (id: string) => request<TraceResponse>("GET", `${sessionPath(id)}/trace`),
  audit: (id: string) =>
    request<{ audit: AuditEntry[] }>("GET", `${sessionPath(id)}/approvals/audit`).then((r) => r.audit),

  sessionAgents: (id: string) =>
    request<{ agents: AgentRow[] }>("GET", `${sessionPath(id)}/agents`).then((r) => r.agents),

  /** Reverts a change set's files (a task's number, or a revert's id), or with dryRun previews it. */
  revert: (id: string, task: string, options: { dryRun?: boolean; force?: boolean } = {}) =>
    request<RevertResult>("POST", `${sessionPath(id)}/revert`, {
      task,
      dry_run: options.dryRun === true,
      force: options.force === true,
    }),

  recovery: (id: string) => request<RecoveryView>("GET", `${sessionPath(id)}/recovery`),
  resolveStep: (id: string, toolCallId: string, decision: "retry" | "accept", evidence: string) =>
    request<RecordedDecision>("POST", `${sessionPath(id)}/recovery/${enc(toolCallId)}/resolve`, {
      decision,
      evidence,
    }),

  listAgents: () => request<{ agents: AgentSummary[] }>("GET", "/api/agents").then((r) => r.agents),
  readAgentConfig: (id: string) => request<AgentConfig>("GET", `/api/agents/${enc(id)}/config`),
  replaceAgentConfig: (id: string, yaml: string) =>
    request<AgentConfig>("PUT", `/api/agents/${enc(id)}/config`, { yaml }),

  /** The URL of a session's live stream (SSE). */
  streamUrl: (id: string) => `${sessionPath(id)}/stream`,
};
