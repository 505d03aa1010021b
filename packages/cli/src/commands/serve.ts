import { statSync } from "node:fs";
import { isIP } from "node:net";
import { resolve } from "node:path";
import type { DatabaseTarget, StartServerOptions } from "@penguin/server";
import { dataRootOf } from "../data-root.js";
import { EXIT_COMPLETED, EXIT_TASK_FAILED, UsageError } from "../exit-codes.js";
import { note } from "../output.js";

export interface ServeOptions {
  host: string;
  port: string;
  dataDir?: string;
  /** `--workspace-root` (repeatable): the folders session workspaces may be picked from. */
  workspaceRoot?: string[];
  /** `--secure-cookies`: the session cookie is marked `Secure`. */
  secureCookies?: boolean;
  /** `--allowed-origin` (repeatable): origins the CSRF check accepts besides the server's own. */
  allowedOrigin?: string[];
  /** `--trusted-proxy` (repeatable): proxies whose `X-Forwarded-For` names the client. */
  trustedProxy?: string[];
  /** `--allowed-host` (repeatable): host names the server answers for (DNS rebinding check). */
  allowedHost?: string[];
  /** `--max-streams-per-user <count>`. */
  maxStreamsPerUser?: string;
  /** `--idle-release <minutes>`. */
  idleRelease?: string;
  /** `--metrics-port <port>`. */
  metricsPort?: string;
  /** `--database <url-or-file>`: PostgreSQL URL or SQLite file; default `PENGUIN_DATABASE_URL`, else the data root's file. */
  database?: string;
  /** `--traces <files|database>`: where the traces are kept (default files). */
  traces?: string;
  /** `--advertise-url <url>`: where other instances send a session's calls (default the listening URL). */
  advertiseUrl?: string;
}

/** Names the database when `--database` is not given (a URL holding a password stays out of shell history). */
export const DATABASE_URL_ENV = "PENGUIN_DATABASE_URL";

/** `https://penguin.example.com` as given: a scheme, a host, an optional port, nothing else. */
function checkedOrigin(origin: string, flag = "--allowed-origin"): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(origin);
  } catch {
    parsed = undefined;
  }
  if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin) {
    throw new UsageError(
      `${flag} takes an origin like https://penguin.example.com (scheme, host, optional port; no path or trailing slash), not "${origin}"`,
    );
  }
  return origin;
}

function checkedFolder(dir: string): string {
  const path = resolve(dir);
  let isFolder = false;
  try {
    isFolder = statSync(path).isDirectory();
  } catch {
    isFolder = false;
  }
  if (!isFolder) throw new UsageError(`--workspace-root ${dir} is not an existing folder`);
  return path;
}

/** `penguin.example.com`: a host name, no scheme, path or port. */
function checkedHostName(name: string): string {
  if (!/^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*\.?$/.test(name)) {
    throw new UsageError(
      `--allowed-host takes a host name like penguin.example.com (no scheme, port or path), not "${name}"`,
    );
  }
  return name;
}

function checkedProxy(address: string): string {
  if (isIP(address) === 0) {
    throw new UsageError(`--trusted-proxy takes an IP address (no host names or ranges), not "${address}"`);
  }
  return address;
}

/** The server options the flags ask for; anything not given keeps the server's default. */
export function serverOptionsOf(opts: ServeOptions): StartServerOptions {
  const port = Number(opts.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(`--port takes a port number from 0 to 65535, not "${opts.port}"`);
  }
  const options: StartServerOptions = { host: opts.host, port, dataRoot: dataRootOf(opts) };
  if (opts.workspaceRoot?.length) options.workspaceRoots = opts.workspaceRoot.map(checkedFolder);
  if (opts.secureCookies) options.secureCookies = true;
  if (opts.allowedOrigin?.length) options.allowedOrigins = opts.allowedOrigin.map((o) => checkedOrigin(o));
  if (opts.advertiseUrl !== undefined)
    options.advertiseUrl = checkedOrigin(opts.advertiseUrl, "--advertise-url");
  if (opts.traces !== undefined) {
    if (opts.traces !== "files" && opts.traces !== "database") {
      throw new UsageError(`--traces takes files or database, not "${opts.traces}"`);
    }
    options.traces = opts.traces;
  }
  if (opts.trustedProxy?.length) options.trustedProxies = opts.trustedProxy.map(checkedProxy);
  if (opts.allowedHost?.length) options.allowedHosts = opts.allowedHost.map(checkedHostName);
  if (opts.maxStreamsPerUser !== undefined) {
    const count = Number(opts.maxStreamsPerUser);
    if (!(Number.isInteger(count) && count >= 1)) {
      throw new UsageError(
        `--max-streams-per-user takes a whole number from 1, not "${opts.maxStreamsPerUser}"`,
      );
    }
    options.maxStreamsPerUser = count;
  }
  if (opts.idleRelease !== undefined) {
    const minutes = Number(opts.idleRelease);
    if (!(Number.isFinite(minutes) && minutes > 0)) {
      throw new UsageError(`--idle-release takes a number of minutes above 0, not "${opts.idleRelease}"`);
    }
    options.idleReleaseMs = Math.round(minutes * 60_000);
  }
  if (opts.metricsPort !== undefined) {
    const metricsPort = Number(opts.metricsPort);
    if (!Number.isInteger(metricsPort) || metricsPort < 0 || metricsPort > 65535) {
      throw new UsageError(`--metrics-port takes a port number from 0 to 65535, not "${opts.metricsPort}"`);
    }
    options.metricsPort = metricsPort;
  }
  return options;
}

/** The package `penguin serve` loads; an optional dependency, so the CLI installs without it. */
export const SERVER_PACKAGE = "@penguin/server";

type ServerModule = typeof import("@penguin/server");

/** Loads the server package, or explains how to install it. */
async function loadServer(): Promise<ServerModule> {
  try {
    return await import(SERVER_PACKAGE);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const missing =
      (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") &&
      String((error as Error).message).includes(SERVER_PACKAGE);
    if (!missing) throw error;
    throw new UsageError(
      `penguin serve needs the ${SERVER_PACKAGE} package, which is not installed: ` +
        `install it next to the CLI (npm install -g ${SERVER_PACKAGE}) and run penguin serve again`,
      EXIT_TASK_FAILED,
    );
  }
}

/** The errors of binding the address, as one line with what to do; anything else stays as it is. */
function listenError(error: unknown, options: StartServerOptions): UsageError | undefined {
  const { code, syscall, port } = (error ?? {}) as NodeJS.ErrnoException & { port?: number };
  if (syscall !== "listen" && syscall !== "bind") return undefined;
  // The metrics listener binds the loopback address on a port of its own.
  const metrics = port !== undefined && port === options.metricsPort && port !== options.port;
  const address = metrics ? `127.0.0.1:${port}` : `${options.host}:${options.port}`;
  const flag = metrics ? "--metrics-port" : "--port";
  const why =
    code === "EADDRINUSE"
      ? `${address} is already in use: stop what listens there or pick another ${flag}`
      : code === "EACCES"
        ? `${address} needs more privileges: pick a ${flag} above 1023`
        : code === "EADDRNOTAVAIL"
          ? `${options.host} is not an address of this machine: pick another --host`
          : `${address}: ${code ?? (error as Error).message}`;
  return new UsageError(`penguin serve cannot listen on ${why}`, EXIT_TASK_FAILED);
}

/**
 * The database `--database` (else PENGUIN_DATABASE_URL, else the data root's SQLite file) names,
 * read by the server package; a value it cannot use is a usage error.
 */
function databaseOf(
  server: ServerModule,
  opts: ServeOptions,
  dataRoot: string,
  env: NodeJS.ProcessEnv,
): DatabaseTarget {
  const fromEnv = env[DATABASE_URL_ENV] || undefined;
  const value = opts.database ?? fromEnv;
  if (value === undefined) return { kind: "sqlite", file: server.serverDatabaseFile(dataRoot) };
  try {
    return server.parseDatabaseTarget(value);
  } catch (error) {
    if (!(error instanceof server.DatabaseTargetError)) throw error;
    const source = opts.database === undefined ? `${DATABASE_URL_ENV} (read as --database): ` : "";
    throw new UsageError(`${source}${error.message}`);
  }
}

/** `penguin serve`: serves the API and web UI until Ctrl-C or SIGTERM. */
export async function serveCommand(
  opts: ServeOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const options = serverOptionsOf(opts);
  const server = await loadServer();
  const database = databaseOf(server, opts, options.dataRoot ?? dataRootOf(opts), env);
  if (options.traces === "database" && database.kind !== "postgres") {
    throw new UsageError(
      `--traces database keeps the traces in a PostgreSQL database shared by the instances: give one with --database postgres://… or ${DATABASE_URL_ENV}`,
    );
  }
  note(`database: ${server.describeDatabaseTarget(database)}`);
  const running = await server.startServer({ ...options, database }).catch((error: unknown) => {
    if (error instanceof server.DatabaseOpenError) throw new UsageError(error.message, EXIT_TASK_FAILED);
    throw listenError(error, options) ?? error;
  });
  // Listened for before the server says it is listening: a supervisor that stops it as soon as it
  // reads that line gets a clean stop, not Node's default death by signal.
  const stopped = new Promise<void>((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
  note(`penguin server listening on ${running.url}`);
  if (running.metricsUrl) note(`penguin metrics (Prometheus) on ${running.metricsUrl}`);
  if (running.initialAdmin) note(server.formatInitialAdminNotice(running.initialAdmin));
  await stopped;
  note("stopping…");
  await running.close();
  return EXIT_COMPLETED;
}
