export const PACKAGE_NAME = "@penguin/server";

// Sessions: the runtime manager, approvals over HTTP, workspaces.
export { MAX_AGENT_CONFIG_BYTES } from "./agents/routes.js";
// Running the server.
export { createServerApp, type ServerApp, type ServerAppOptions } from "./app.js";
// Auth.
export {
  BOOTSTRAP_ADMIN_USERNAME,
  ensureBootstrapAdmin,
  formatInitialAdminNotice,
  type InitialAdmin,
} from "./auth/bootstrap.js";
export { type HashSlot, PasswordHashGate, type PasswordHashGateOptions } from "./auth/hash-gate.js";
export type { LoginThrottleOptions } from "./auth/login-throttle.js";
export { SESSION_COOKIE_NAME } from "./auth/middleware.js";
export { hashPassword, verifyPassword } from "./auth/password.js";
export type { User } from "./auth/users.js";
export {
  DatabaseOpenError,
  type DatabaseTarget,
  DatabaseTargetError,
  databaseSecretValues,
  describeDatabaseTarget,
  parseDatabaseTarget,
  redactDatabaseUrl,
} from "./db/database-target.js";
// Database.
export { MIGRATIONS, migrateToLatest } from "./db/migrations.js";
export { type OpenDatabaseOptions, openDatabase } from "./db/open-database.js";
export { DATABASE_FILE_NAME, serverDatabaseFile } from "./db/open-sqlite.js";
export type {
  ApiTokensTable,
  AuthSessionsTable,
  ServerDatabase,
  SessionRow,
  SessionState,
  SessionsTable,
  UsageRecordRow,
  UsageRecordsTable,
  UserRole,
  UsersTable,
} from "./db/schema.js";
// HTTP building blocks for the routes added on top.
export type { AppContext, AppEnv, AuthState } from "./http/context.js";
export { type ErrorResponse, ErrorResponseSchema, jsonError } from "./http/errors.js";
export { SAFE_ID_PATTERN, SafeIdSchema, SessionIdSchema } from "./http/ids.js";
export {
  type AnyRouteSpec,
  defineRoute,
  type RouteAccess,
  type RouteInput,
  type RouteMethod,
  type RouteSpec,
} from "./http/route.js";
// Limits and defaults.
export {
  AUTH_SESSION_TTL_MS,
  DEFAULT_HOST,
  DEFAULT_IDLE_RELEASE_MS,
  DEFAULT_PORT,
  MAX_BODY_BYTES,
  MAX_TASK_IMAGES,
  MAX_TITLE_CHARS,
  SSE_HEARTBEAT_MS,
  SSE_MAX_BUFFERED_BYTES,
  SSE_MAX_BUFFERED_EVENTS,
} from "./limits.js";
export { databaseModePolicy, type PendingApproval, PendingApprovals } from "./runtime/approvals.js";
export { sessionChannel, userChannel } from "./runtime/channels.js";
export {
  type CreateSessionInput,
  SessionManager,
  SessionSetupError,
} from "./runtime/session-manager.js";
export { SessionRuntime, type TaskState } from "./runtime/session-runtime.js";
export { checkWorkspace, defaultWorkspaceRoots, type WorkspaceCheck } from "./sessions/workspace.js";
// Live streams.
export {
  EventHub,
  type EventHubOptions,
  type HubEvent,
  type PublishInput,
  RESYNC_REQUIRED,
  type ResyncReason,
  SERVER_EVENT,
  Subscription,
} from "./sse/event-hub.js";
export { HEARTBEAT_COMMENT, type StreamChannelOptions, streamChannel } from "./sse/stream-channel.js";
export {
  type StreamCredential,
  type StreamLease,
  StreamRegistry,
  type StreamRegistryOptions,
} from "./sse/stream-registry.js";
export {
  type RunningServer,
  SERVER_LOG_FILE_NAME,
  type StartServerOptions,
  serverLogFile,
  startServer,
} from "./start-server.js";
export { TRACE_STORAGES, type TraceStorage } from "./traces/database-traces.js";
export { SERVER_VERSION } from "./version.js";
// The web app.
export { packagedWebRoot, serveWeb } from "./web/serve-web.js";
