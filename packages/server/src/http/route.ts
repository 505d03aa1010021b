import type { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { z } from "zod";
import type { AppContext, AppEnv, AuthState } from "./context.js";
import { ErrorResponseSchema, forbidden, formatIssues, jsonError, unauthorized } from "./errors.js";

export type RouteMethod = "get" | "post" | "put" | "patch" | "delete";

/** Who may call a route: anyone, any logged-in user, or admins only. */
export type RouteAccess = "public" | "user" | "admin";

export interface RouteResponse {
  description: string;
  schema?: z.ZodType;
}

/** A documented error answer: its body has the shape every API error has. */
export function errorResponse(description: string): RouteResponse {
  return { description, schema: ErrorResponseSchema };
}

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

/**
 * The caller a handler sees: a route for users or admins only runs once authentication found
 * one, so its handler gets it for sure; a public route runs for anyone and gets none.
 */
export type RouteAuth<A extends RouteAccess> = A extends "public" ? undefined : AuthState;

export interface RouteInput<P, B, Q = undefined, A extends RouteAccess = RouteAccess> {
  params: Parsed<P>;
  body: Parsed<B>;
  /** The query string, validated by the route's `query` schema (undefined without one). */
  query: Parsed<Q>;
  /** The caller: always there on routes for users and admins, undefined on public routes. */
  auth: RouteAuth<A>;
}

/**
 * One API route: the zod schemas that validate its input are the same ones the OpenAPI
 * document is generated from, so the description cannot drift from what the server accepts.
 */
export interface RouteSpec<
  P extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  A extends RouteAccess = RouteAccess,
> {
  method: RouteMethod;
  /** Hono path syntax (`/api/tokens/:id`). */
  path: string;
  summary: string;
  tag: string;
  access: A;
  /** May be called while the user still has to replace an initial password. */
  allowBeforePasswordChange?: boolean;
  params?: P;
  body?: B;
  /** An object schema of the query parameters (each a string); unknown parameters are ignored. */
  query?: Q;
  responses: Record<number, RouteResponse>;
  /**
   * The largest body this route accepts, when its schema's own limits need more than the
   * server's default (413 beyond it). The OpenAPI document states it.
   */
  maxBodyBytes?: number;
  handle(c: AppContext, input: RouteInput<P, B, Q, A>): Response | Promise<Response>;
}

export type AnyRouteSpec = RouteSpec<z.ZodType | undefined, z.ZodType | undefined, z.ZodType | undefined>;

/**
 * Identity function that lets TypeScript infer the input types of `handle` from the schemas and
 * the type of its caller from `access`.
 */
export function defineRoute<
  P extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  A extends RouteAccess = RouteAccess,
>(spec: RouteSpec<P, B, Q, A>): AnyRouteSpec {
  return spec;
}

/** `METHOD /path` of a route, as the auth middleware matches public routes. */
export function routeKey(method: string, path: string): string {
  return `${method.toUpperCase()} ${path}`;
}

function isJsonContentType(value: string | undefined): boolean {
  if (!value) return false;
  const type = value.split(";")[0].trim().toLowerCase();
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));
}

/**
 * One part of the request (path parameters, query, body) as its schema parses it, or the 400
 * that lists each issue under the part's name (`params.id`). Without a schema the part is
 * not read and its value is undefined.
 */
function validatePart(
  c: AppContext,
  schema: z.ZodType | undefined,
  where: "params" | "query" | "body",
  message: string,
  read: () => unknown,
): { value: unknown } | Response {
  if (!schema) return { value: undefined };
  const parsed = schema.safeParse(read());
  if (parsed.success) return { value: parsed.data };
  return jsonError(c, 400, "invalid_request", message, { issues: formatIssues(where, parsed.error) });
}

/** The JSON body parsed by `schema`: 415 when it is not JSON, 400 when it does not parse or match. */
async function readJsonBody(c: AppContext, schema: z.ZodType): Promise<{ value: unknown } | Response> {
  if (!isJsonContentType(c.req.header("content-type"))) {
    return jsonError(c, 415, "unsupported_media_type", "send the body as application/json");
  }
  let json: unknown;
  try {
    json = JSON.parse(await c.req.text());
  } catch {
    return jsonError(c, 400, "invalid_request", "the body is not valid JSON");
  }
  return validatePart(c, schema, "body", "the body does not match the schema", () => json);
}

/**
 * Registers each route on `app` behind the checks that every route shares, in this order:
 * the body size (413 beyond the route's limit), access (admins only → 403), the initial-password gate (403 `password_change_required`),
 * path parameters (400), query parameters (400), then the JSON body (415 when it is not JSON, 400 when it does not parse
 * or does not match its schema). Authentication itself (401) happens earlier, in the global
 * middleware, for every route that is not public.
 */
export function mountRoutes(
  app: Hono<AppEnv>,
  routes: readonly AnyRouteSpec[],
  defaultMaxBodyBytes: number,
): void {
  for (const spec of routes) {
    const maxBodyBytes = routeBodyLimit(spec, defaultMaxBodyBytes);
    const limit = bodyLimit({
      maxSize: maxBodyBytes,
      onError: (c) => jsonError(c, 413, "payload_too_large", `the body is larger than ${maxBodyBytes} bytes`),
    });
    app.on(spec.method.toUpperCase(), spec.path, limit, async (c) => {
      const auth = c.get("auth");
      if (spec.access !== "public") {
        if (!auth) return unauthorized(c);
        if (spec.access === "admin" && auth.user.role !== "admin") return forbidden(c, "admins only");
        if (auth.user.must_change_password && !spec.allowBeforePasswordChange) {
          return jsonError(c, 403, "password_change_required", "choose a new password first");
        }
      }

      const params = validatePart(c, spec.params, "params", "invalid path parameter", () => c.req.param());
      if (params instanceof Response) return params;
      const query = validatePart(c, spec.query, "query", "invalid query parameter", () => c.req.query());
      if (query instanceof Response) return query;
      const body = spec.body ? await readJsonBody(c, spec.body) : { value: undefined };
      if (body instanceof Response) return body;

      return spec.handle(c, { params: params.value, body: body.value, query: query.value, auth });
    });
  }
}

/** The body limit of a route: its own when it declares one, else the server's. */
export function routeBodyLimit(spec: AnyRouteSpec, defaultMaxBodyBytes: number): number {
  return spec.maxBodyBytes ?? defaultMaxBodyBytes;
}

/**
 * A path the API serves, asked with a method it does not serve, gets 405 with the `Allow`
 * header (RFC 9110), not a 404 that would claim the path does not exist. Registered after every
 * route, so it only answers what no route did; HEAD is served wherever GET is.
 */
export function mountMethodNotAllowed(app: Hono<AppEnv>, routes: readonly AnyRouteSpec[]): void {
  const methodsByPath = new Map<string, Set<string>>();
  for (const spec of routes) {
    const methods = methodsByPath.get(spec.path) ?? new Set<string>();
    methods.add(spec.method.toUpperCase());
    if (spec.method === "get") methods.add("HEAD");
    methodsByPath.set(spec.path, methods);
  }
  for (const [path, methods] of methodsByPath) {
    const allow = [...methods].sort().join(", ");
    app.all(path, (c) => {
      c.header("Allow", allow);
      return jsonError(c, 405, "method_not_allowed", `${path} answers ${allow} only`);
    });
  }
}
