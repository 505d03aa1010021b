import type { MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import type { Kysely } from "kysely";
import type { RelayedCaller } from "../cluster/instance-calls.js";
import type { ServerDatabase } from "../db/schema.js";
import type { AppEnv, AuthState } from "../http/context.js";
import { jsonError, unauthorized } from "../http/errors.js";
import { checkOrigin, UNSAFE_METHODS } from "../http/origin.js";
import { routeKey } from "../http/route.js";
import { findApiTokenUser } from "./api-tokens.js";
import { findAuthSessionUser } from "./auth-sessions.js";
import { findUserRowById, toUser } from "./users.js";

/** The browser session cookie: HttpOnly, SameSite=Strict, Path=/ (Secure when configured). */
export const SESSION_COOKIE_NAME = "penguin_session";

/** The Hono environment of a call run for another instance: the caller it authenticated. */
export interface RelayedCallEnv {
  relayedAuth?: AuthState;
}

/**
 * The AuthState of a call another instance authenticated and passed on: the same user and
 * credential, once this instance has checked the user is still there and enabled (a disabled
 * user's credentials stop working on every instance at once).
 */
export async function relayedAuthOf(
  db: Kysely<ServerDatabase>,
  { userId, ...how }: RelayedCaller,
): Promise<AuthState | undefined> {
  const row = await findUserRowById(db, userId);
  return row && row.disabled_at === null ? { ...how, user: toUser(row) } : undefined;
}

/** Bearer tokens and cookie values are base64url (with a prefix); anything else is not ours. */
const BEARER = /^Bearer\s+([A-Za-z0-9_-]{1,512})$/i;

export interface AuthenticateOptions {
  db: Kysely<ServerDatabase>;
  /** `METHOD /path` of the routes anyone may call (health, login). */
  publicRoutes: ReadonlySet<string>;
  allowedOrigins: ReadonlySet<string>;
  now: () => Date;
}

/**
 * Deny by default: every request except those to a public route must prove a user, with
 * `Authorization: Bearer <token>` (API clients) or the session cookie (the browser), else it
 * gets 401 `{error:"unauthorized"}` — also for paths that match no route, so unknown paths
 * reveal nothing. A present but invalid bearer token is a 401 too; it never falls back to the
 * cookie. Cookie-authenticated state-changing requests must pass the Origin check
 * (http/origin.ts), else 403 `forbidden_origin`.
 */
export function authenticate(options: AuthenticateOptions): MiddlewareHandler<AppEnv> {
  const { db, publicRoutes, allowedOrigins, now } = options;
  return async (c, next) => {
    c.set("auth", undefined);
    const method = c.req.method === "HEAD" ? "GET" : c.req.method;
    if (publicRoutes.has(routeKey(method, c.req.path))) return next();

    // A call another instance authenticated and passed on (cluster/instance-calls.ts): only
    // code in this process sets the environment, never a request from the network.
    const relayed = (c.env as RelayedCallEnv | undefined)?.relayedAuth;
    if (relayed !== undefined) {
      c.set("auth", relayed);
      return next();
    }

    const authorization = c.req.header("authorization");
    if (authorization !== undefined) {
      const token = BEARER.exec(authorization.trim())?.[1];
      const found = token === undefined ? undefined : await findApiTokenUser(db, token, now());
      if (!found) return unauthorized(c);
      c.set("auth", { user: found.user, method: "bearer", apiTokenId: found.tokenId });
      return next();
    }

    const cookie = getCookie(c, SESSION_COOKIE_NAME);
    const session = cookie && cookie.length <= 512 ? await findAuthSessionUser(db, cookie, now()) : undefined;
    if (!session) return unauthorized(c);
    if (UNSAFE_METHODS.has(c.req.method) && checkOrigin(c, allowedOrigins) !== "same-origin") {
      return jsonError(
        c,
        403,
        "forbidden_origin",
        "state-changing requests need an Origin header of this server",
      );
    }
    c.set("auth", {
      user: session.user,
      method: "cookie",
      authSessionId: session.sessionId,
      authSessionExpiresAt: session.expiresAt,
    });
    return next();
  };
}
