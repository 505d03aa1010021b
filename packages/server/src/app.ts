import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import { z } from "zod";
import { trustedProxySet } from "./auth/client-address.js";
import { PasswordHashGate, type PasswordHashGateOptions } from "./auth/hash-gate.js";
import { LoginThrottle, type LoginThrottleOptions } from "./auth/login-throttle.js";
import { authenticate, SESSION_COOKIE_NAME } from "./auth/middleware.js";
import { authRoutes } from "./auth/routes.js";
import { streamCredentialVerifier } from "./auth/stream-credentials.js";
import type { ServerDatabase } from "./db/schema.js";
import type { AppEnv } from "./http/context.js";
import { jsonError } from "./http/errors.js";
import { checkHost, HostAllowList } from "./http/host-check.js";
import { jsonResponseHeaders } from "./http/json-headers.js";
import { buildOpenApiDocument } from "./http/openapi.js";
import { requestLog } from "./http/request-log.js";
import {
  type AnyRouteSpec,
  defineRoute,
  mountMethodNotAllowed,
  mountRoutes,
  routeKey,
} from "./http/route.js";
import { AUTH_SESSION_TTL_MS, MAX_BODY_BYTES } from "./limits.js";
import { StreamRegistry } from "./sse/stream-registry.js";
import { SERVER_VERSION } from "./version.js";
import { serveWeb } from "./web/serve-web.js";

export interface ServerAppOptions {
  db: Kysely<ServerDatabase>;
  logger: Logger;
  /** Mark the session cookie `Secure`; turn on when users reach the server over https. Default false. */
  secureCookies?: boolean;
  /**
   * Origins (`https://penguin.example.com`) accepted by the CSRF check besides the one that
   * matches the `Host` header; needed behind a proxy that rewrites `Host`.
   */
  allowedOrigins?: readonly string[];
  /**
   * Host names (`penguin.example.com`) this server answers for besides IP addresses, `localhost`
   * and the hosts of `allowedOrigins`; a request whose `Host` names anything else gets 421
   * (DNS rebinding). Needed when users reach the server by a name, e.g. behind a proxy.
   */
  allowedHosts?: readonly string[];
  /**
   * Largest request body in bytes; larger ones get 413. Default 1 MiB. The task and steering
   * routes accept what their documented limits need instead (about 10 MB and 3 MB).
   */
  maxBodyBytes?: number;
  loginThrottle?: LoginThrottleOptions;
  /**
   * Password hashes computed at once and waiting (default 2 and 16); beyond that logins get 429
   * `server_busy`. A `PasswordHashGate` instance may be passed to share or observe it.
   */
  passwordHashing?: PasswordHashGateOptions | PasswordHashGate;
  /**
   * Addresses of reverse proxies in front of the server. Login failures are counted per client
   * address; only a request whose socket peer is one of these has its client taken from
   * `X-Forwarded-For` (which anyone else could forge). Default none.
   */
  trustedProxies?: readonly string[];
  /**
   * The open live streams by credential (the session routes share it); default a new one built
   * from `maxStreamsPerUser` and `streamCredentialRecheckMs`.
   */
  streams?: StreamRegistry;
  /** Live streams (SSE) one user may have open at once; beyond it 429 `too_many_streams`. Default 32. */
  maxStreamsPerUser?: number;
  /** How often an open stream's credential is checked again in the database. Default 30 s. */
  streamCredentialRecheckMs?: number;
  /** Browser session lifetime; default 30 days. */
  sessionTtlMs?: number;
  /** The clock (tests move it to step over backoff delays). */
  now?: () => Date;
  /**
   * Further described routes (the session routes build on this). They get the same checks,
   * validation and OpenAPI description as the built-in ones, and need a user unless public.
   */
  routes?: readonly AnyRouteSpec[];
  /**
   * A folder with the built web app (index.html and assets/), served at `/` without login;
   * `/api` paths never reach it. Without one, only the API is served.
   */
  webRoot?: string;
}

export interface ServerApp {
  app: Hono<AppEnv>;
  /** The described routes, as listed in the OpenAPI document. */
  routes: readonly AnyRouteSpec[];
  /** The OpenAPI 3.1 document served at `GET /api/openapi.json`. */
  openApiDocument(): Record<string, unknown>;
}

const HealthResponseSchema = z.object({ status: z.literal("ok"), version: z.string() });

/**
 * The HTTP API as a Hono app, without a listening socket (see `startServer`). Every route but
 * `GET /api/health` and `POST /api/auth/login` requires a user; that includes
 * `GET /api/openapi.json`, because "auth on every route but health" is the simplest rule to keep
 * true, and the web app only needs the document after login.
 */
export function createServerApp(options: ServerAppOptions): ServerApp {
  const { db, logger } = options;
  const now = options.now ?? (() => new Date());
  const allowedOrigins = new Set(options.allowedOrigins ?? []);
  const hostAllowList = new HostAllowList([
    ...(options.allowedHosts ?? []),
    ...[...allowedOrigins].filter((origin) => URL.canParse(origin)).map((origin) => new URL(origin).host),
  ]);
  const maxBodyBytes = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const streams =
    options.streams ??
    new StreamRegistry({
      maxPerUser: options.maxStreamsPerUser,
      recheckMs: options.streamCredentialRecheckMs,
      verify: streamCredentialVerifier(db, now),
      now,
    });

  const health = defineRoute({
    method: "get",
    path: "/api/health",
    summary: "Liveness check (no login needed)",
    tag: "server",
    access: "public",
    responses: { 200: { description: "The server is up", schema: HealthResponseSchema } },
    handle: (c) => c.json({ status: "ok" as const, version: SERVER_VERSION }, 200),
  });

  let document: Record<string, unknown> | undefined;
  const openApi = defineRoute({
    method: "get",
    path: "/api/openapi.json",
    summary: "This API's OpenAPI 3.1 document",
    tag: "server",
    access: "user",
    allowBeforePasswordChange: true,
    responses: { 200: { description: "The OpenAPI document" } },
    handle: (c) => c.json(openApiDocument(), 200),
  });

  const routes: AnyRouteSpec[] = [
    health,
    openApi,
    ...authRoutes({
      db,
      logger,
      throttle: new LoginThrottle(options.loginThrottle),
      hashGate:
        options.passwordHashing instanceof PasswordHashGate
          ? options.passwordHashing
          : new PasswordHashGate(options.passwordHashing),
      trustedProxies: trustedProxySet(options.trustedProxies),
      now,
      secureCookies: options.secureCookies ?? false,
      allowedOrigins,
      sessionTtlMs: options.sessionTtlMs ?? AUTH_SESSION_TTL_MS,
      streams,
    }),
    ...(options.routes ?? []),
  ];

  function openApiDocument(): Record<string, unknown> {
    document ??= buildOpenApiDocument(
      routes,
      { title: "Penguin server API", version: SERVER_VERSION },
      SESSION_COOKIE_NAME,
      maxBodyBytes,
    );
    return document;
  }

  const publicRoutes = new Set(
    routes.filter((route) => route.access === "public").map((route) => routeKey(route.method, route.path)),
  );

  const app = new Hono<AppEnv>();
  app.use(requestLog(logger));
  app.use(jsonResponseHeaders());
  // Before anything else answers (the web app's files included): a rebound name gets nothing.
  app.use(checkHost(hostAllowList));
  // The web app's files are public (the app shows the login page); /api paths pass through.
  if (options.webRoot !== undefined) app.use(serveWeb(options.webRoot));
  // Authentication first: a stranger's body is never read, whatever its size.
  app.use(authenticate({ db, publicRoutes, allowedOrigins, now }));
  // Each route limits its body (authentication has run by then, so a stranger's body is never read).
  mountRoutes(app, routes, maxBodyBytes);
  mountMethodNotAllowed(app, routes);

  app.notFound((c) => jsonError(c, 404, "not_found", "no such route"));
  app.onError((error, c) => {
    if (error instanceof HTTPException) {
      return jsonError(c, error.status as 400, "http_error", error.message || "request failed");
    }
    logger.error({ err: error, method: c.req.method, path: c.req.path }, "unhandled error");
    return jsonError(c, 500, "internal_error", "the server failed to handle this request");
  });

  return { app, routes, openApiDocument };
}
