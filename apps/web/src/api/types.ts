// Request and response shapes of the Penguin server's JSON API, written by hand to match its zod
// schemas (packages/server/src/**/schemas.ts; the OpenAPI document at /api/openapi.json describes
// the same). Envelopes and partial streams use the types of @penguin/protocol.
import type { ApprovalMode, OmniMessage, OpenPartialStream, ToolCallPayload } from "@penguin/protocol";

/** The modes a server session can be in: every mode of the protocol, plan mode included. */
export type SessionApprovalMode = ApprovalMode;

/** The modes an approved plan can run in: plan mode would run nothing. */
export type ExecutionMode = Exclude<ApprovalMode, "plan">;

/**
 * What each mode does, as the mode switch shows it: "allow-all: every call runs; deny-all: none
 * runs; read-only: tools with permission r run, the rest wait for a human; always-ask: every call
 * waits for a human; plan: reading tools run, the rest are refused, and the answer is a plan to
 * approve". The modes themselves are the protocol's (imported as a type only, so the bundle stays
 * free of the protocol's schemas): the record's type makes it name every mode.
 */
export const APPROVAL_MODE_HINTS: Readonly<Record<SessionApprovalMode, string>> = {
  "allow-all": "every call runs",
  "deny-all": "no call runs",
  "read-only": "read-only tools run, the rest wait for you",
  "always-ask": "every call waits for you",
  plan: "only reading tools run; the agent answers with a plan for you to approve",
};

const isApprovalMode = (name: string): name is SessionApprovalMode =>
  Object.hasOwn(APPROVAL_MODE_HINTS, name);

/** The approval modes in the protocol's order (the hints list them so). */
export const APPROVAL_MODES: readonly SessionApprovalMode[] =
  Object.keys(APPROVAL_MODE_HINTS).filter(isApprovalMode);

/** The modes an approved plan can run in, in the same order. */
export const EXECUTION_MODES: readonly ExecutionMode[] = APPROVAL_MODES.filter(
  (mode): mode is ExecutionMode => mode !== "plan",
);

export interface User {
  id: string;
  username: string;
  role: "admin" | "member";
  must_change_password: boolean;
  created_at: string;
  last_login_at: string | null;
  disabled: boolean;
}

export interface Session {
  id: string;
  user_id: string;
  title: string;
  agent_id: string;
  workspace: string;
  provider: string;
  model_id: string;
  approval_mode: SessionApprovalMode;
  /** Where its tools run: native (as the server's user), sandbox, or a profile of its agent's config. */
  execution_profile: string;
  state: "idle" | "running";
  created_at: string;
  updated_at: string;
}

/** A session as the list shows it: with what its model requests cost so far. */
export interface SessionListItem extends Session {
  /** USD so far; null when no price is known. */
  cost_usd: number | null;
  total_tokens: number;
}

/** A folder's sub-folders inside the server's workspace roots (the folder picker). */
export interface FolderListing {
  path: string;
  root: string;
  parent: string | null;
  folders: { name: string; path: string }[];
  truncated: boolean;
}

/** A model of the project config, as the create form offers it. */
export interface ModelChoice {
  ref: string;
  name?: string;
  vision: boolean;
}

export interface ModelList {
  models: ModelChoice[];
  default_model: string | null;
}

export interface CreateSessionRequest {
  workspace: string;
  model?: string;
  approval_mode?: SessionApprovalMode;
  agent_id?: string;
  title?: string;
  execution_profile?: string;
}

/** One entry of GET /api/execution-profiles. */
export interface ExecutionProfileChoice {
  name: string;
  kind: "native" | "sandbox";
  network: boolean;
  /** Its tools act with the server user's whole access (native, or a sandbox with network and a writable /). */
  full_host_access: boolean;
}

export interface ExecutionProfileList {
  profiles: ExecutionProfileChoice[];
  default_profile: string;
}

export interface TaskState {
  /** running: a task runs; compacting: a compaction of the context runs (one at a time). */
  state: "idle" | "running" | "compacting";
  pendingSteering: number;
}

/** A tool call waiting for a human decision. */
export interface PendingApproval {
  tool_call_id: string;
  tool_call: OmniMessage<ToolCallPayload>;
  origin?: string[];
  requested_at: string;
  /** For a command a prefix rule can cover: the prefix to offer for the session. */
  suggested_prefix?: string;
}

/** A person's answer to a waiting call, as `POST …/approvals/:toolCallId` takes it. */
export type ApprovalAnswer =
  | { decision: "allow"; remember?: { tool: true } | { command_prefix: string } }
  | { decision: "deny"; reason?: string };

/** A question of the session's agent (`ask`) that waits for the user's answer. */
export interface PendingQuestion {
  question_id: string;
  text: string;
  /** The ask call that waits for the answer. */
  tool_call_id: string;
  asked_at: string;
}

export interface MessagesResponse {
  /** The trace's records (session_meta and tool lists left out). */
  messages: OmniMessage[];
  /** The running task's open streams, to seed a PartialAggregator with. */
  partial: OpenPartialStream[];
  task_state: TaskState;
  approvals: PendingApproval[];
  /** The agent's questions that wait for the user (absent from a server without `ask`). */
  questions?: PendingQuestion[];
  /** The stream's newest event id when the answer was made: live events after it are new. */
  last_event_id?: string;
  /** The model's context window in tokens, where the config states it. */
  context_window?: number;
}

export interface TraceDiagnostic {
  path: string;
  line: number;
  kind: string;
  message: string;
}

export interface TraceResponse {
  records: OmniMessage[];
  diagnostics: TraceDiagnostic[];
}

export interface AuditEntry {
  timestamp: string;
  toolCallId: string;
  decision: "allow" | "deny" | "forbidden";
  source?: { kind: string; name?: string };
  reason?: string;
  toolName?: string;
  arguments?: string;
  outcome?: string;
  origin?: string[];
}

export interface AgentSummary {
  id: string;
  name?: string;
  description?: string;
  /** Why the agent's file cannot be loaded, when it cannot. */
  problem?: string;
}

export interface AgentConfig {
  agent_id: string;
  yaml: string;
}

export interface ConfigError {
  line: number;
  column: number;
  path: string;
  message: string;
}

/** The body of every error answer; `error` is a stable code. */
export interface ErrorBody {
  error: string;
  message?: string;
  issues?: { path: string; message: string }[];
  /** Only on `invalid_config` (a rejected system_config.yaml). */
  config_errors?: ConfigError[];
}

/** The `data` of a named `server_event` on a session stream. */
export type ServerEvent =
  | ({ type: "approval_request" } & Omit<PendingApproval, "tool_call_id">)
  | ({ type: "question_request" } & PendingQuestion)
  | ({ type: "task_state" } & TaskState)
  /** The session's row after a change (its approval mode, its title), from any tab or client. */
  | { type: "session_updated"; session: Session }
  | { type: "resync_required"; reason: string }
  | { type: string; [field: string]: unknown };

/** Goal mode of a task: worked on round after round until done, blocked or out of budget. */
export interface GoalRequest {
  /** Tokens the goal may spend (total minus cache reads); then one wrap-up round. */
  budget?: number;
}

/** A path a revert left alone: changed since its change set (or its prior content never kept). */
export interface RevertConflict {
  path: string;
  reason: "changed_since" | "not_restorable";
  /** The hash the change set left (null: nothing there). */
  expected_sha256?: string | null;
  /** The hash there now (null: nothing there). */
  current_sha256?: string | null;
}

/** The answer of POST /api/sessions/:id/revert. */
export interface RevertResult {
  session_id: string;
  reverted: string;
  /** The revert's own change set (it can be reverted in turn); null for a dry run or when nothing changed. */
  change_set: string | null;
  restored: string[];
  conflicts: RevertConflict[];
  dry_run: boolean;
  forced: boolean;
}
