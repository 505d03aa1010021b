import { type AddressInfo, isIP } from "node:net";
import { join } from "node:path";
import { type ServerType, serve } from "@hono/node-server";
import { createLogger, logsDir, resolveDataRoot } from "@penguin/state";
import type { Hono } from "hono";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import { agentRoutes } from "./agents/routes.js";
import { createServerApp, type ServerAppOptions } from "./app.js";
import { ensureBootstrapAdmin, type InitialAdmin } from "./auth/bootstrap.js";
import { relayedAuthOf } from "./auth/middleware.js";
import { streamCredentialVerifier } from "./auth/stream-credentials.js";
import { InstanceCalls } from "./cluster/instance-calls.js";
import { PgRelay } from "./cluster/pg-relay.js";
import {
  type DatabaseTarget,
  databaseSecretValues,
  describeDatabaseTarget,
  parseDatabaseTarget,
} from "./db/database-target.js";
import { migrateToLatest } from "./db/migrations.js";
import { openDatabase } from "./db/open-database.js";
import { serverDatabaseFile } from "./db/open-sqlite.js";
import type { ServerDatabase } from "./db/schema.js";
import type { AppEnv } from "./http/context.js";
import { DEFAULT_HOST, DEFAULT_IDLE_RELEASE_MS, DEFAULT_PORT } from "./limits.js";
import { serverSecretValues } from "./logging/server-secrets.js";
import { type MetricsListener, startMetricsListener } from "./metrics/listener.js";
import { ServerMetrics } from "./metrics/prometheus.js";
import { InstanceLease } from "./runtime/instance-lease.js";
import { InstanceStore } from "./runtime/instance-store.js";
import { SessionManager, serverTraceLocation } from "./runtime/session-manager.js";
import { sessionRoutes } from "./sessions/routes/index.js";
import { SessionStore } from "./sessions/store.js";
import { confineWorkspaceRoots, defaultWorkspaceRoots } from "./sessions/workspace.js";
import { EventHub } from "./sse/event-hub.js";
import { StreamRegistry } from "./sse/stream-registry.js";
import { DatabaseTraces, type TraceStorage } from "./traces/database-traces.js";
import { usageRoutes } from "./usage/routes.js";
import { packagedWebRoot } from "./web/serve-web.js";

export const SERVER_LOG_FILE_NAME = "server.log";

/** `<data root>/logs/server.log`. */
export function serverLogFile(dataRoot: string): string {
  return join(logsDir(dataRoot), SERVER_LOG_FILE_NAME);
}

export interface StartServerOptions
  extends Pick<
    ServerAppOptions,
    | "secureCookies"
    | "allowedOrigins"
    | "allowedHosts"
    | "maxBodyBytes"
    | "loginThrottle"
    | "passwordHashing"
    | "trustedProxies"
    | "sessionTtlMs"
    | "maxStreamsPerUser"
    | "streamCredentialRecheckMs"
    | "routes"
    | "now"
  > {
  /** Default 127.0.0.1: reachable from this machine only. */
  host?: string;
  /** Default 7364; 0 picks a free port (see `port` of the result). */
  port?: number;
  /** Default `PENGUIN_HOME`, else `~/.penguin/data`. */
  dataRoot?: string;
  /**
   * The database: a PostgreSQL database (`postgres://…`, which several instances may share) or a
   * SQLite file; a string is read as `penguin serve --database` reads it. Default: the SQLite
   * file `<data root>/server/penguin.db`. A database that cannot be opened is a
   * DatabaseOpenError (one line, password redacted).
   */
  database?: DatabaseTarget | string;
  /**
   * Where the traces are kept: `files` (default) in the data root, which instances on several
   * machines must share (a shared volume); `database` in the PostgreSQL database as well, so each
   * instance may have a data root of its own (`penguin serve --traces database`).
   */
  traces?: TraceStorage;
  /**
   * Where logs go; default a JSON-lines file `<data root>/logs/server.log` (0600) that scrubs the
   * project's key values, credential-looking environment values and the agents' MCP env and
   * header values wherever they appear.
   */
  logger?: Logger;
  /**
   * The folders session workspaces may be picked from: a client's workspace path must resolve
   * (symbolic links included) to an existing folder inside one of them, else 400. The data root
   * is refused in any case (as a workspace, inside one, or inside it). Default: the home folder
   * of the user the server runs as.
   */
  workspaceRoots?: readonly string[];
  /**
   * A session with no task and no running command for this long is released (its SDK session
   * disposed); its next task resumes it from the trace. Default 10 minutes.
   */
  idleReleaseMs?: number;
  /**
   * The built web app to serve at `/`: default the one this package ships in `dist/web`; false
   * serves the API only.
   */
  webRoot?: string | false;
  /**
   * Serves Prometheus metrics at `http://127.0.0.1:<metricsPort>/metrics`, a listener of its own
   * on the loopback address whatever `host` is (0 picks a free port). Absent: no metrics.
   */
  metricsPort?: number;
  /**
   * The URL other instances and clients reach this one at, told with every 409
   * `session_owned_elsewhere` (several instances on one PostgreSQL database). Default: the URL it
   * listens on.
   */
  advertiseUrl?: string;
  /** How long the instance's lease on its sessions lasts unrenewed; default LEASE_TTL_MS (15 s). */
  leaseTtlMs?: number;
  /** How often the lease is renewed; default LEASE_RENEW_MS (5 s). */
  leaseRenewMs?: number;
  /**
   * How long a call routed to the instance that owns its session waits for the answer (on
   * PostgreSQL); default RELAYED_CALL_TIMEOUT_MS (15 s). Past it the answer is the 409.
   */
  relayedCallTimeoutMs?: number;
}

export interface RunningServer {
  /** `http://127.0.0.1:7364` (IPv6 hosts in brackets). */
  url: string;
  host: string;
  port: number;
  /** The Hono app being served. */
  app: Hono<AppEnv>;
  /** The OpenAPI 3.1 document of the API, as served at `GET /api/openapi.json`. */
  openApiDocument(): Record<string, unknown>;
  /** The database (open until `close`). */
  db: Kysely<ServerDatabase>;
  /** The live streams: one channel per session (`session:<id>`) and per user (`user:<id>`). */
  hub: EventHub;
  /** The open live streams by credential (revocation ends them; capped per user). */
  streams: StreamRegistry;
  /** The session runtime manager (live SDK sessions, their tasks and approvals). */
  sessions: SessionManager;
  /** This process as an instance on the database: its id and its lease on its sessions. */
  instance: InstanceLease;
  logger: Logger;
  /** The Prometheus endpoint, when `metricsPort` was given. */
  metricsUrl: string | undefined;
  /**
   * The initial admin password while it is unchanged: print it to the operator (stderr) with
   * `formatInitialAdminNotice`. Never logged.
   */
  initialAdmin: InitialAdmin | undefined;
  /**
   * Disposes every session runtime (tasks end, processes end, traces close), ends the live
   * streams and open connections, stops listening and closes the database.
   */
  close(): Promise<void>;
}

function listen(server: ServerType): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once("error", onError);
    server.once("listening", () => {
      server.off("error", onError);
      resolve(server.address() as AddressInfo);
    });
  });
}

function formatUrl(host: string, port: number): string {
  return host.includes(":") ? `http://[${host}]:${port}` : `http://${host}:${port}`;
}

/** The database the options name, else the SQLite file of the data root. */
function databaseTargetOf(option: StartServerOptions["database"], dataRoot: string): DatabaseTarget {
  if (option === undefined) return { kind: "sqlite", file: serverDatabaseFile(dataRoot) };
  return typeof option === "string" ? parseDatabaseTarget(option) : option;
}

/**
 * Opens (and migrates) the database (default `<data root>/server/penguin.db`), creates the
 * first admin when there is no user, and serves the API on `host:port`.
 */
export async function startServer(options: StartServerOptions = {}): Promise<RunningServer> {
  const host = options.host ?? DEFAULT_HOST;
  const dataRoot = options.dataRoot ?? resolveDataRoot();
  const target = databaseTargetOf(options.database, dataRoot);
  const logger =
    options.logger ??
    createLogger({
      file: serverLogFile(dataRoot),
      secrets: [...(await serverSecretValues(dataRoot)), ...databaseSecretValues(target)],
    });
  const db = await openDatabase(target, {
    ownFolder: target.kind === "sqlite" && target.file === serverDatabaseFile(dataRoot),
    onIdleError: (error) =>
      logger.warn({ err: error }, "database connection lost; it is reopened on the next query"),
  });
  logger.info({ database: describeDatabaseTarget(target) }, "database opened");
  let server: ServerType | undefined;
  let metricsListener: MetricsListener | undefined;
  let lease: InstanceLease | undefined;
  let relay: PgRelay | undefined;
  let calls: InstanceCalls | undefined;
  let databaseTraces: DatabaseTraces | undefined;
  try {
    if (options.traces === "database" && target.kind !== "postgres") {
      throw new Error("traces in the database need a PostgreSQL database (--database postgres://…)");
    }
    const applied = await migrateToLatest(db);
    if (applied.length > 0) logger.info({ migrations: applied }, "database migrated");
    const initialAdmin = await ensureBootstrapAdmin(db);
    const hub = new EventHub();
    const now = options.now ?? (() => new Date());
    const store = new SessionStore(db, now);
    const streams = new StreamRegistry({
      maxPerUser: options.maxStreamsPerUser,
      recheckMs: options.streamCredentialRecheckMs,
      verify: streamCredentialVerifier(db, now),
      now,
    });
    const metrics = options.metricsPort === undefined ? undefined : new ServerMetrics();
    let sessions: SessionManager | undefined;
    const instance = new InstanceLease({
      store: new InstanceStore(db),
      logger,
      ttlMs: options.leaseTtlMs,
      renewMs: options.leaseRenewMs,
      onRenewed: async () => sessions?.checkOwnership(),
    });
    lease = instance;
    // Before anything can claim a session: the sessions of instances that are gone become free
    // (and idle), and this one is registered (its address filled in once it listens).
    await instance.start(options.advertiseUrl ?? "");
    if (target.kind === "postgres") {
      // Live events cross instances: a browser on this one sees a task another one runs.
      const started = await PgRelay.start({
        url: target.url,
        instanceId: instance.id,
        logger,
        onEvents: (events) => {
          for (const relayed of events) {
            if (calls?.receive(relayed)) continue;
            const { channel, id, event, data } = relayed;
            hub.publishRelayed(channel, { ...(event !== undefined ? { event } : {}), data }, id);
          }
        },
        // Other instances' events of the outage never arrive: every client here refetches.
        onReconnected: () => {
          logger.info("the relay is connected again; live clients are told to resync");
          hub.resyncAll("relay_interrupted");
        },
      });
      relay = started;
      hub.relayTo((channel, { id, event, data }) =>
        started.send({ channel, id, ...(event !== undefined ? { event } : {}), data }),
      );
    }
    if (options.traces === "database") {
      databaseTraces = new DatabaseTraces(db, logger, serverTraceLocation(dataRoot));
    }
    sessions = new SessionManager({
      hub,
      store,
      logger,
      dataRoot,
      idleReleaseMs: options.idleReleaseMs ?? DEFAULT_IDLE_RELEASE_MS,
      metrics,
      lease: instance,
      ...(databaseTraces ? { traces: databaseTraces } : {}),
    });
    const routes = [
      ...sessionRoutes({
        manager: sessions,
        store,
        hub,
        streams,
        // The data root holds the database, every user's traces and the key files: never a workspace.
        workspaceRoots: confineWorkspaceRoots(options.workspaceRoots ?? defaultWorkspaceRoots(), [dataRoot]),
      }),
      ...agentRoutes({ dataRoot }),
      ...usageRoutes({ db }),
      ...(options.routes ?? []),
    ];
    const webRoot = options.webRoot === false ? undefined : (options.webRoot ?? packagedWebRoot());
    // The name the server listens on is its own (a wildcard address names nothing).
    const allowedHosts = [...(options.allowedHosts ?? []), ...(isIP(host) === 0 ? [host] : [])];
    const { app, openApiDocument } = createServerApp({
      ...options,
      allowedHosts,
      routes,
      db,
      logger,
      webRoot,
      streams,
    });
    server = serve({ fetch: app.fetch, hostname: host, port: options.port ?? DEFAULT_PORT });
    const address = await listen(server);
    const url = formatUrl(host, address.port);
    const eventRelay = relay;
    if (eventRelay) {
      const instanceCalls = new InstanceCalls({
        instanceId: instance.id,
        send: (event) => eventRelay.send(event),
        selfUrl: () => url,
        logger,
        timeoutMs: options.relayedCallTimeoutMs,
        async fetch(request, caller) {
          const relayedAuth = await relayedAuthOf(db, caller);
          if (!relayedAuth) {
            return Response.json(
              { error: "unauthorized", message: "the user is gone or disabled" },
              { status: 401 },
            );
          }
          return app.fetch(request, { relayedAuth });
        },
      });
      calls = instanceCalls;
      sessions.forwardCall = (owner, request, caller, body) =>
        instanceCalls.forward(owner.id, request, caller, body);
    }
    logger.info({ url, instance_id: instance.id }, "server listening");
    if (options.advertiseUrl === undefined) await instance.setAddress(url);
    if (metrics && options.metricsPort !== undefined) {
      metricsListener = await startMetricsListener(metrics, options.metricsPort);
      logger.info({ url: metricsListener.url }, "metrics listening");
    }
    const metricsEndpoint = metricsListener;
    const running = server;
    const manager = sessions;
    const instanceCalls = calls;
    const traceCopies = databaseTraces;
    let closing: Promise<void> | undefined;
    return {
      url,
      host,
      port: address.port,
      app,
      openApiDocument,
      db,
      hub,
      streams,
      sessions: manager,
      instance,
      logger,
      metricsUrl: metricsEndpoint?.url,
      initialAdmin,
      close() {
        closing ??= (async () => {
          await manager.close();
          // The last records of the runtimes just closed, before the sessions are let go.
          await traceCopies?.close();
          // Its sessions are free for the other instances at once, not when the lease lapses.
          await instance.stop();
          instanceCalls?.close();
          await eventRelay?.close();
          await metricsEndpoint?.close();
          streams.close();
          hub.close();
          await new Promise<void>((resolve) => {
            running.close(() => resolve());
            // Live streams never end by themselves: end every connection so close() returns.
            if ("closeAllConnections" in running) running.closeAllConnections();
          });
          await db.destroy();
          logger.info("server stopped");
        })();
        return closing;
      },
    };
  } catch (error) {
    server?.close();
    await lease?.stop().catch(() => undefined);
    await relay?.close();
    await metricsListener?.close();
    await databaseTraces?.close();
    await db.destroy();
    throw error;
  }
}
