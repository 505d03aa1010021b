import type { Context } from "hono";
import { deleteCookie, setCookie } from "hono/cookie";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { ServerDatabase } from "../db/schema.js";
import { jsonError, notFound } from "../http/errors.js";
import { IdParamsSchema } from "../http/ids.js";
import { checkOrigin } from "../http/origin.js";
import { type AnyRouteSpec, defineRoute, errorResponse } from "../http/route.js";
import { PASSWORD_HASH_BUSY_RETRY_SECONDS } from "../limits.js";
import type { StreamRegistry } from "../sse/stream-registry.js";
import { createApiToken, deleteAllApiTokens, deleteApiToken, listApiTokens } from "./api-tokens.js";
import { createAuthSession, deleteAuthSession, deleteOtherAuthSessions } from "./auth-sessions.js";
import { clientAddressKey } from "./client-address.js";
import type { PasswordHashGate } from "./hash-gate.js";
import type { LoginAttempt, LoginThrottle, ThrottleRefusal } from "./login-throttle.js";
import { SESSION_COOKIE_NAME } from "./middleware.js";
import { verifyAgainstDummy, verifyPassword } from "./password.js";
import {
  ApiTokenListResponseSchema,
  ChangePasswordRequestSchema,
  CreatedApiTokenSchema,
  CreateTokenRequestSchema,
  CreateUserRequestSchema,
  LoginRequestSchema,
  UserListResponseSchema,
  UserResponseSchema,
} from "./schemas.js";
import { userAdminRoutes } from "./user-admin-routes.js";
import {
  createUser,
  findUserRowById,
  findUserRowByUsername,
  listUsers,
  normalizeUsername,
  recordLogin,
  setUserPassword,
  toUser,
} from "./users.js";

export interface AuthRoutesOptions {
  db: Kysely<ServerDatabase>;
  logger: Logger;
  throttle: LoginThrottle;
  /** Every password hash and check waits for a slot here. */
  hashGate: PasswordHashGate;
  /** Proxies whose `X-Forwarded-For` names the client (normalized, see `trustedProxySet`). */
  trustedProxies: ReadonlySet<string>;
  now: () => Date;
  secureCookies: boolean;
  allowedOrigins: ReadonlySet<string>;
  sessionTtlMs: number;
  /** Open live streams: a revoked session or token ends those it opened. */
  streams: StreamRegistry;
}

const REFUSAL_MESSAGES: Record<ThrottleRefusal, string> = {
  username: "too many failed attempts for this user; wait and retry",
  address: "too many failed attempts from this address; wait and retry",
  full: "too many failed login attempts on this server; wait and retry",
};

function tooManyAttempts(c: Context, reason: ThrottleRefusal, waitMs: number): Response {
  c.header("Retry-After", String(Math.max(1, Math.ceil(waitMs / 1000))));
  return jsonError(c, 429, "too_many_attempts", REFUSAL_MESSAGES[reason]);
}

function hashingBusy(c: Context): Response {
  c.header("Retry-After", String(PASSWORD_HASH_BUSY_RETRY_SECONDS));
  return jsonError(
    c,
    429,
    "server_busy",
    "too many passwords are being checked right now; retry in a moment",
  );
}

function isUniqueViolation(error: unknown): boolean {
  const text = error instanceof Error ? `${(error as { code?: unknown }).code ?? ""} ${error.message}` : "";
  return /SQLITE_CONSTRAINT_UNIQUE|UNIQUE constraint|23505|duplicate key/i.test(text);
}

/** Login, logout, the current user, password change, API tokens and user administration. */
export function authRoutes(options: AuthRoutesOptions): AnyRouteSpec[] {
  const { db, logger, throttle, hashGate, now } = options;

  /**
   * Runs a password check for `attempt` through the throttle and the hashing gate: undefined with
   * `refused` set when the attempt is refused before any hashing (429), else the check's result.
   * The gate is entered first, so an attempt refused because the server is busy is not counted
   * as a failure.
   */
  async function throttledCheck<T>(
    c: Context,
    attempt: LoginAttempt,
    check: () => Promise<T>,
  ): Promise<{ refused: Response } | { result: T }> {
    const slot = hashGate.enter();
    if (!slot) return { refused: hashingBusy(c) };
    try {
      const verdict = throttle.admit(attempt, now().getTime());
      if (!verdict.admitted) return { refused: tooManyAttempts(c, verdict.reason, verdict.retryAfterMs) };
      await slot.ready;
      return { result: await check() };
    } finally {
      slot.release();
    }
  }

  /** Hashing outside a login (new users, new passwords) waits for a slot too. */
  async function gatedHash<T>(
    c: Context,
    work: () => Promise<T>,
  ): Promise<{ refused: Response } | { result: T }> {
    const running = hashGate.tryRun(work);
    return running ? { result: await running } : { refused: hashingBusy(c) };
  }

  const login = defineRoute({
    method: "post",
    path: "/api/auth/login",
    summary: "Log in with a username and password; sets the session cookie",
    tag: "auth",
    access: "public",
    body: LoginRequestSchema,
    responses: {
      200: { description: "Logged in; the session cookie is set", schema: UserResponseSchema },
      401: errorResponse("Wrong username or password"),
      403: errorResponse(
        "The Origin header names another site (forbidden_origin), or an admin disabled the user (user_disabled)",
      ),
      429: errorResponse(
        "Too many failed attempts for this username or from this address (too_many_attempts), or too many logins being checked at once (server_busy); see Retry-After",
      ),
    },
    async handle(c, { body }) {
      // Login CSRF: a browser always sends Origin here; refuse another site's page.
      if (checkOrigin(c, options.allowedOrigins) === "foreign") {
        return jsonError(c, 403, "forbidden_origin", "the Origin header names another site");
      }
      const username = normalizeUsername(body.username);
      const attempt = { username, address: clientAddressKey(c, options.trustedProxies) };
      const checked = await throttledCheck(c, attempt, async () => {
        const row = await findUserRowByUsername(db, username);
        const ok = row
          ? await verifyPassword(body.password, row.password_hash)
          : await verifyAgainstDummy(body.password);
        return ok ? row : undefined;
      });
      if ("refused" in checked) return checked.refused;
      const row = checked.result;
      if (!row) {
        logger.warn({ event: "login_failed", username, address: attempt.address }, "login failed");
        return jsonError(c, 401, "unauthorized", "wrong username or password");
      }
      throttle.succeeded(attempt);
      // Told only to whoever knows the password: a disabled user learns why they cannot log in.
      if (row.disabled_at !== null) return jsonError(c, 403, "user_disabled", "an admin disabled this user");
      await recordLogin(db, row.id, now());
      const session = await createAuthSession(db, row.id, now(), options.sessionTtlMs);
      setCookie(c, SESSION_COOKIE_NAME, session.token, {
        httpOnly: true,
        sameSite: "Strict",
        path: "/",
        secure: options.secureCookies,
        maxAge: Math.floor(options.sessionTtlMs / 1000),
      });
      logger.info({ event: "login", user_id: row.id }, "logged in");
      return c.json({ user: toUser({ ...row, last_login_at: now().toISOString() }) }, 200);
    },
  });

  const logout = defineRoute({
    method: "post",
    path: "/api/auth/logout",
    summary: "End the browser session of the session cookie",
    tag: "auth",
    access: "user",
    allowBeforePasswordChange: true,
    responses: { 204: { description: "Logged out; the cookie is cleared" } },
    async handle(c, { auth }) {
      if (auth.authSessionId !== undefined) {
        await deleteAuthSession(db, auth.authSessionId);
        options.streams.revokeAuthSession(auth.authSessionId);
      }
      deleteCookie(c, SESSION_COOKIE_NAME, { path: "/", secure: options.secureCookies });
      return c.body(null, 204);
    },
  });

  const me = defineRoute({
    method: "get",
    path: "/api/auth/me",
    summary: "The logged-in user",
    tag: "auth",
    access: "user",
    allowBeforePasswordChange: true,
    responses: { 200: { description: "The caller", schema: UserResponseSchema } },
    handle(c, { auth }) {
      return c.json({ user: auth.user }, 200);
    },
  });

  const changePassword = defineRoute({
    method: "post",
    path: "/api/auth/password",
    summary: "Change the caller's password (ends their other browser sessions and revokes their API tokens)",
    tag: "auth",
    access: "user",
    allowBeforePasswordChange: true,
    body: ChangePasswordRequestSchema,
    responses: {
      204: { description: "Changed" },
      403: errorResponse("The current password is wrong"),
      429: errorResponse("Too many failed attempts, or too many passwords being checked; see Retry-After"),
    },
    async handle(c, { body, auth }) {
      const user = auth.user;
      // The same backoff as login: a stolen session must not be a way to guess the password.
      const attempt = { username: user.username, address: clientAddressKey(c, options.trustedProxies) };
      const checked = await throttledCheck(c, attempt, async () => {
        const row = await findUserRowById(db, user.id);
        return row !== undefined && (await verifyPassword(body.current_password, row.password_hash));
      });
      if ("refused" in checked) return checked.refused;
      if (!checked.result) return jsonError(c, 403, "wrong_password", "the current password is wrong");
      throttle.succeeded(attempt);
      if (body.new_password === body.current_password) {
        return jsonError(c, 400, "invalid_request", "the new password must differ from the current one");
      }
      const hashed = await gatedHash(c, () => setUserPassword(db, user.id, body.new_password, false));
      if ("refused" in hashed) return hashed.refused;
      // Whoever knew the old password may have made sessions and tokens with it: both go. The
      // browser session making the change stays, so the user is not logged out by it.
      await deleteOtherAuthSessions(db, user.id, auth.authSessionId);
      const revoked = await deleteAllApiTokens(db, user.id);
      options.streams.revokeUser(user.id, auth.authSessionId);
      logger.info(
        { event: "password_changed", user_id: user.id, api_tokens_revoked: revoked },
        "password changed",
      );
      return c.body(null, 204);
    },
  });

  const createToken = defineRoute({
    method: "post",
    path: "/api/tokens",
    summary: "Create an API token for the caller; the token is returned only once",
    tag: "tokens",
    access: "user",
    body: CreateTokenRequestSchema,
    responses: { 201: { description: "Created", schema: CreatedApiTokenSchema } },
    async handle(c, { body, auth }) {
      const at = now();
      const expiresAt =
        body.expires_in_days === undefined
          ? undefined
          : new Date(at.getTime() + body.expires_in_days * 24 * 60 * 60 * 1000);
      const created = await createApiToken(db, auth.user.id, body.name, at, expiresAt);
      logger.info(
        { event: "token_created", user_id: auth.user.id, token_id: created.id },
        "API token created",
      );
      return c.json(created, 201);
    },
  });

  const listTokens = defineRoute({
    method: "get",
    path: "/api/tokens",
    summary: "The caller's API tokens (never the tokens themselves)",
    tag: "tokens",
    access: "user",
    responses: { 200: { description: "The caller's tokens", schema: ApiTokenListResponseSchema } },
    async handle(c, { auth }) {
      return c.json({ tokens: await listApiTokens(db, auth.user.id) }, 200);
    },
  });

  const deleteToken = defineRoute({
    method: "delete",
    path: "/api/tokens/:id",
    summary: "Revoke one of the caller's API tokens",
    tag: "tokens",
    access: "user",
    params: IdParamsSchema,
    responses: {
      204: { description: "Revoked" },
      404: errorResponse("The caller has no token with this id"),
    },
    async handle(c, { params, auth }) {
      // Scoped to the caller: another user's token id is "not found", never deleted or confirmed.
      if (!(await deleteApiToken(db, auth.user.id, params.id))) return notFound(c, "no such token");
      options.streams.revokeApiToken(params.id);
      logger.info(
        { event: "token_revoked", user_id: auth.user.id, token_id: params.id },
        "API token revoked",
      );
      return c.body(null, 204);
    },
  });

  const listAllUsers = defineRoute({
    method: "get",
    path: "/api/users",
    summary: "Every user (admins only)",
    tag: "users",
    access: "admin",
    responses: {
      200: { description: "All users", schema: UserListResponseSchema },
      403: errorResponse("The caller is not an admin"),
    },
    async handle(c) {
      return c.json({ users: await listUsers(db) }, 200);
    },
  });

  const addUser = defineRoute({
    method: "post",
    path: "/api/users",
    summary: "Create a user with an initial password they must change (admins only)",
    tag: "users",
    access: "admin",
    body: CreateUserRequestSchema,
    responses: {
      201: { description: "Created", schema: UserResponseSchema },
      403: errorResponse("The caller is not an admin"),
      409: errorResponse("The username is taken"),
      429: errorResponse("Too many passwords being checked at once; see Retry-After"),
    },
    async handle(c, { body, auth }) {
      try {
        const created = await gatedHash(c, () =>
          createUser(db, {
            username: body.username,
            password: body.password,
            role: body.role,
            mustChangePassword: true,
            now: now(),
          }),
        );
        if ("refused" in created) return created.refused;
        const user = created.result;
        logger.info(
          { event: "user_created", user_id: auth.user.id, created_user_id: user.id },
          "user created",
        );
        return c.json({ user }, 201);
      } catch (error) {
        if (isUniqueViolation(error)) return jsonError(c, 409, "conflict", "this username is taken");
        throw error;
      }
    },
  });

  return [
    login,
    logout,
    me,
    changePassword,
    createToken,
    listTokens,
    deleteToken,
    listAllUsers,
    addUser,
    ...userAdminRoutes({ db, logger, now, streams: options.streams, gatedHash }),
  ];
}
