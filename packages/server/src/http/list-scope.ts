import { z } from "zod";
import type { AppContext, AuthState } from "./context.js";
import { jsonError } from "./errors.js";
import { errorResponse } from "./route.js";

/** The `all` query parameter of a listing that shows the caller's rows unless an admin asks for everyone's. */
export const allUsersParameter = (description: string) =>
  z.enum(["true", "false"]).optional().describe(description);

/** The documented 403 of `listScope`. */
export const ALL_USERS_FORBIDDEN = errorResponse("all=true by a user who is not an admin");

/**
 * Whose rows a listing shows: the caller's own (`owner` is their user id), or with `all=true`
 * every user's (`owner` undefined), which only an admin may ask for. A user who is not an admin
 * gets the 403 instead.
 */
export function listScope(
  c: AppContext,
  all: "true" | "false" | undefined,
  auth: AuthState,
): { owner: string | undefined } | Response {
  if (all !== "true") return { owner: auth.user.id };
  if (auth.user.role !== "admin") return jsonError(c, 403, "forbidden", "admins only");
  return { owner: undefined };
}
