import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { z } from "zod";

/** Every error response of the API has this shape; `error` is a stable code, `message` is for people. */
export const ErrorResponseSchema = z.object({
  error: z.string(),
  message: z.string().optional(),
  issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  /** With `session_owned_elsewhere`: the URL of the server instance that runs the session. */
  owner_address: z.string().optional(),
});
export type ErrorResponse = z.infer<typeof ErrorResponseSchema>;

export function jsonError(
  c: Context,
  status: ContentfulStatusCode,
  error: string,
  message?: string,
  extra: Omit<ErrorResponse, "error" | "message"> = {},
): Response {
  const body: ErrorResponse = { error, ...(message !== undefined ? { message } : {}), ...extra };
  return c.json(body, status);
}

export const unauthorized = (c: Context) =>
  jsonError(c, 401, "unauthorized", "log in or send a bearer token");
export const forbidden = (c: Context, message = "not allowed for this user") =>
  jsonError(c, 403, "forbidden", message);
export const notFound = (c: Context, message = "no such resource") => jsonError(c, 404, "not_found", message);

/** Zod issues as `{path, message}` pairs, the path dotted (`body.password`). */
export function formatIssues(where: string, error: z.ZodError): { path: string; message: string }[] {
  return error.issues.map((issue) => ({
    path: [where, ...issue.path.map(String)].join("."),
    message: issue.message,
  }));
}
