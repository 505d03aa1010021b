import type { Context } from "hono";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { ServerDatabase } from "../db/schema.js";
import { jsonError, notFound } from "../http/errors.js";
import { IdParamsSchema } from "../http/ids.js";
import { type AnyRouteSpec, defineRoute, errorResponse } from "../http/route.js";
import type { StreamRegistry } from "../sse/stream-registry.js";
import { deleteAllApiTokens } from "./api-tokens.js";
import { deleteOtherAuthSessions } from "./auth-sessions.js";
import { ResetPasswordRequestSchema, UpdateUserRequestSchema, UserResponseSchema } from "./schemas.js";
import { findUserRowById, setUserDisabled, setUserPassword, toUser } from "./users.js";

/** Runs password hashing through the server's hashing gate, or answers 429 when it is full. */
export type GatedHash = <T>(
  c: Context,
  work: () => Promise<T>,
) => Promise<{ refused: Response } | { result: T }>;

export interface UserAdminRoutesOptions {
  db: Kysely<ServerDatabase>;
  logger: Logger;
  now: () => Date;
  streams: StreamRegistry;
  gatedHash: GatedHash;
}

const NOT_ADMIN = errorResponse("The caller is not an admin");
const NO_SUCH_USER = errorResponse("No user with this id");
const NOT_ON_SELF = errorResponse(
  "The body is invalid, or an admin asked this for themselves (they would lock themselves out)",
);

/** Disabling and password resets by an admin: both end everything the user is logged in with. */
export function userAdminRoutes(options: UserAdminRoutesOptions): AnyRouteSpec[] {
  const { db, logger, now, streams, gatedHash } = options;

  /** Ends the user's browser sessions and open streams: what they did with the old state stops. */
  async function logOutEverywhere(userId: string): Promise<void> {
    await deleteOtherAuthSessions(db, userId, undefined);
    streams.revokeUser(userId);
  }

  const updateUser = defineRoute({
    method: "patch",
    path: "/api/users/:id",
    summary: "Disable or enable a user (admins only); disabling logs them out everywhere",
    tag: "users",
    access: "admin",
    params: IdParamsSchema,
    body: UpdateUserRequestSchema,
    responses: {
      200: { description: "The user as now", schema: UserResponseSchema },
      400: NOT_ON_SELF,
      403: NOT_ADMIN,
      404: NO_SUCH_USER,
    },
    async handle(c, { params, body, auth }) {
      if (params.id === auth.user.id && body.disabled) {
        return jsonError(c, 400, "invalid_request", "an admin cannot disable themselves");
      }
      if (!(await setUserDisabled(db, params.id, body.disabled ? now() : undefined))) {
        return notFound(c, "no such user");
      }
      if (body.disabled) await logOutEverywhere(params.id);
      logger.info(
        {
          event: body.disabled ? "user_disabled" : "user_enabled",
          user_id: auth.user.id,
          target_user_id: params.id,
        },
        body.disabled ? "user disabled" : "user enabled",
      );
      const row = await findUserRowById(db, params.id);
      return row ? c.json({ user: toUser(row) }, 200) : notFound(c, "no such user");
    },
  });

  const resetPassword = defineRoute({
    method: "post",
    path: "/api/users/:id/password",
    summary:
      "Set a new initial password for a user (admins only); they must replace it, and their sessions and API tokens end",
    tag: "users",
    access: "admin",
    params: IdParamsSchema,
    body: ResetPasswordRequestSchema,
    responses: {
      204: { description: "Reset" },
      400: NOT_ON_SELF,
      403: NOT_ADMIN,
      404: NO_SUCH_USER,
      429: errorResponse("Too many passwords being checked at once; see Retry-After"),
    },
    async handle(c, { params, body, auth }) {
      if (params.id === auth.user.id) {
        return jsonError(c, 400, "invalid_request", "change your own password with POST /api/auth/password");
      }
      if (!(await findUserRowById(db, params.id))) return notFound(c, "no such user");
      const hashed = await gatedHash(c, () => setUserPassword(db, params.id, body.password, true));
      if ("refused" in hashed) return hashed.refused;
      await logOutEverywhere(params.id);
      const revoked = await deleteAllApiTokens(db, params.id);
      logger.info(
        {
          event: "password_reset",
          user_id: auth.user.id,
          target_user_id: params.id,
          api_tokens_revoked: revoked,
        },
        "password reset by an admin",
      );
      return c.body(null, 204);
    },
  });

  return [updateUser, resetPassword];
}
