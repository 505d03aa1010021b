import type { ApprovalMode } from "@penguin/state";
import type { ColumnType, Insertable, Selectable } from "kysely";

/**
 * The tables the server indexes. Traces stay the source of truth for what happened in a
 * session; these rows only index users, credentials, sessions, approval modes and usage.
 *
 * Portability rules (so a team can move to PostgreSQL through Kysely's dialect unchanged):
 * timestamps are ISO-8601 UTC strings from `Date.prototype.toISOString` (they sort as text),
 * flags are integers 0/1 (better-sqlite3 cannot bind booleans), and ids are text.
 */
export interface ServerDatabase {
  users: UsersTable;
  auth_sessions: AuthSessionsTable;
  api_tokens: ApiTokensTable;
  sessions: SessionsTable;
  usage_records: UsageRecordsTable;
  server_instances: ServerInstancesTable;
  trace_records: TraceRecordsTable;
}

export const USER_ROLES = ["admin", "member"] as const;
export type UserRole = (typeof USER_ROLES)[number];

export const SESSION_STATES = ["idle", "running"] as const;
export type SessionState = (typeof SESSION_STATES)[number];

export interface UsersTable {
  id: string;
  /** Lower case; unique. */
  username: string;
  /** `scrypt$N$r$p$salt$hash`, see auth/password.ts. */
  password_hash: string;
  role: UserRole;
  /** 1 until the user has chosen their own password. */
  must_change_password: 0 | 1;
  created_at: string;
  /** The last successful password login; null before the first. */
  last_login_at: string | null;
  /** Set while an admin has disabled the user: their logins, sessions and tokens are refused. */
  disabled_at: string | null;
}

/** Browser sessions: the cookie holds a random token, the row holds only its SHA-256. */
export interface AuthSessionsTable {
  /** SHA-256 (hex) of the cookie token. */
  id: string;
  user_id: string;
  created_at: string;
  expires_at: string;
}

/** Bearer tokens for API clients; the token itself is shown once and never stored. */
export interface ApiTokensTable {
  id: string;
  user_id: string;
  name: string;
  /** SHA-256 (hex) of the token. */
  token_hash: string;
  created_at: string;
  last_used_at: string | null;
  /** After this instant the token is refused; null: it never expires. */
  expires_at: string | null;
}

export interface SessionsTable {
  /** The Penguin session id (the trace file name's stem). */
  id: string;
  user_id: string;
  title: string;
  agent_id: string;
  workspace: string;
  provider: string;
  model_id: string;
  /** One of the modes of `system_config.yaml`, plan mode included; re-read on every approval, so a change applies mid-task. */
  approval_mode: ApprovalMode;
  /**
   * Where its tools run (`native`, `sandbox`, or a profile of its agent's config), as its
   * session_meta records; the column's default is `native` (what sessions before profiles had).
   */
  execution_profile: ColumnType<string, string | undefined, string>;
  state: SessionState;
  created_at: string;
  updated_at: string;
  /**
   * The server instance whose runtime holds the session (see runtime/instance-lease.ts); null
   * while none does. Never part of a session as the API shows it.
   */
  owner_instance: ColumnType<string | null, string | null | undefined, string | null>;
}

/** A running server process on this database, and how long its claim on its sessions lasts. */
export interface ServerInstancesTable {
  /** Random, new at every start. */
  id: string;
  /** The URL other instances and clients reach it at (its `--advertise-url`, else its own URL). */
  address: string;
  /** With `pid`: an instance on this host that is gone is recognised at once, without waiting for its lease. */
  hostname: string;
  pid: number;
  started_at: string;
  /** Renewed while the instance runs; once past, its sessions are free to take. */
  lease_expires_at: string;
}

/**
 * The traces kept in the database (`penguin serve --traces database`): one row per record of a
 * trace file, the file named by its session, index and day folder, the record by its 1-based
 * position in that file. The files in each instance's data root are copies of these rows.
 */
export interface TraceRecordsTable {
  session_id: string;
  file_index: number;
  day: string;
  position: number;
  /** The record's JSON line, as the file holds it (without the newline). */
  record: string;
}

/** Token usage of one model request, as reported by the `token_usage` event. */
export interface UsageRecordsTable {
  id: string;
  session_id: string;
  cache_read_tokens: number;
  cache_write_tokens: number;
  output_tokens: number;
  total_tokens: number;
  /** Null when the model's prices are unknown. */
  cost_usd: number | null;
  created_at: string;
}

export type UserRow = Selectable<UsersTable>;
export type NewUserRow = Insertable<UsersTable>;
export type ApiTokenRow = Selectable<ApiTokensTable>;
/** A session as the server's code and API see it (which instance holds it is the lease's business). */
export type SessionRow = Omit<Selectable<SessionsTable>, "owner_instance">;
/** The columns of a SessionRow, selected by name so `owner_instance` never reaches a client. */
export const SESSION_COLUMNS = [
  "id",
  "user_id",
  "title",
  "agent_id",
  "workspace",
  "provider",
  "model_id",
  "approval_mode",
  "execution_profile",
  "state",
  "created_at",
  "updated_at",
] as const satisfies readonly (keyof SessionRow)[];
export type ServerInstanceRow = Selectable<ServerInstancesTable>;
export type UsageRecordRow = Selectable<UsageRecordsTable>;
