import { z } from "zod";
import { ErrorResponseSchema } from "./errors.js";
import { type AnyRouteSpec, routeBodyLimit } from "./route.js";

export const OPENAPI_VERSION = "3.1.0";

/** Names of the two ways to authenticate, as referenced by each operation's `security`. */
const COOKIE_AUTH = "cookieAuth";
const BEARER_AUTH = "bearerAuth";

type JsonObject = Record<string, unknown>;

/**
 * OpenAPI 3.1 uses JSON Schema 2020-12 as is, so zod's own `z.toJSONSchema` output serves
 * without translation. Request bodies describe what the server accepts (`input`), responses
 * what it sends (`output`).
 */
function jsonSchema(schema: z.ZodType, io: "input" | "output"): JsonObject {
  const generated = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io,
    unrepresentable: "any",
  }) as JsonObject;
  const { $schema: _dialect, ...rest } = generated;
  return rest;
}

/** `/api/tokens/:id` → `/api/tokens/{id}`. */
export function openApiPath(honoPath: string): string {
  return honoPath.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
}

function pathParameters(spec: AnyRouteSpec): JsonObject[] {
  if (!spec.params) return [];
  const schema = jsonSchema(spec.params, "input");
  const properties = (schema.properties ?? {}) as Record<string, JsonObject>;
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: "path",
    required: true,
    schema: property,
  }));
}

function queryParameters(spec: AnyRouteSpec): JsonObject[] {
  if (!spec.query) return [];
  const schema = jsonSchema(spec.query, "input");
  const properties = (schema.properties ?? {}) as Record<string, JsonObject>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: "query",
    required: required.has(name),
    ...(typeof property.description === "string" ? { description: property.description } : {}),
    schema: property,
  }));
}

/** Methods whose requests may carry a body (and so meet the body limit). */
const BODY_METHODS: ReadonlySet<string> = new Set(["post", "put", "patch", "delete"]);

/**
 * The answers every route shares (see `mountRoutes` and the global middleware), added to what a
 * route documents itself, so the document lists every status the server can send.
 */
function sharedResponses(spec: AnyRouteSpec, maxBodyBytes: number): JsonObject {
  const errorContent = { "application/json": { schema: jsonSchema(ErrorResponseSchema, "output") } };
  const shared: JsonObject = {
    500: {
      description: "internal_error: the server failed (the log has the details)",
      content: errorContent,
    },
    421: {
      description: "misdirected_request: the Host header names neither this server nor an allowed host",
      content: errorContent,
    },
  };
  if (spec.access !== "public") {
    shared[401] = { description: "Not logged in and no valid bearer token", content: errorContent };
    shared[403] = {
      description:
        "forbidden_origin: a cookie request that changes state without this server's Origin; password_change_required: the initial password must be changed first" +
        (spec.access === "admin" ? "; forbidden: the caller is not an admin" : ""),
      content: errorContent,
    };
  }
  if (spec.params || spec.body || spec.query) {
    shared[400] = {
      description: "invalid_request: invalid path parameter, query or body",
      content: errorContent,
    };
  }
  if (BODY_METHODS.has(spec.method)) {
    shared[413] = {
      description: `payload_too_large: the body is larger than ${maxBodyBytes} bytes`,
      content: errorContent,
    };
  }
  if (spec.body) {
    shared[415] = {
      description: "unsupported_media_type: the body is not application/json",
      content: errorContent,
    };
  }
  return shared;
}

function operation(spec: AnyRouteSpec, defaultMaxBodyBytes: number): JsonObject {
  const shared = sharedResponses(spec, routeBodyLimit(spec, defaultMaxBodyBytes));
  const responses: JsonObject = {};
  for (const [status, response] of Object.entries(spec.responses)) {
    const own = response.schema ? jsonSchema(response.schema, "output") : undefined;
    const common = shared[status] as
      | { description: string; content: { "application/json": { schema: JsonObject } } }
      | undefined;
    // A route's own answer for a shared status (a 400 for an invalid config, a 403 of its own)
    // comes besides the shared one, never instead of it.
    const schema = own && common ? { anyOf: [own, common.content["application/json"].schema] } : own;
    responses[status] = {
      description: common ? `${response.description}; or ${common.description}` : response.description,
      ...(schema ? { content: { "application/json": { schema } } } : {}),
    };
  }
  for (const [status, response] of Object.entries(shared)) responses[status] ??= response;
  return {
    operationId: `${spec.method}${openApiPath(spec.path)
      .split(/[/{}_.-]+/)
      .filter(Boolean)
      .map((part) => part[0].toUpperCase() + part.slice(1))
      .join("")}`,
    summary: spec.summary,
    tags: [spec.tag],
    security: spec.access === "public" ? [] : [{ [COOKIE_AUTH]: [] }, { [BEARER_AUTH]: [] }],
    ...(spec.params || spec.query ? { parameters: [...pathParameters(spec), ...queryParameters(spec)] } : {}),
    ...(spec.body
      ? {
          requestBody: {
            required: true,
            content: { "application/json": { schema: jsonSchema(spec.body, "input") } },
          },
        }
      : {}),
    responses,
  };
}

export interface OpenApiInfo {
  title: string;
  version: string;
  description?: string;
}

/** The OpenAPI document of `routes`, generated from the same zod schemas that validate requests. */
export function buildOpenApiDocument(
  routes: readonly AnyRouteSpec[],
  info: OpenApiInfo,
  cookieName: string,
  maxBodyBytes: number,
): JsonObject {
  const paths: Record<string, JsonObject> = {};
  for (const spec of routes) {
    const path = openApiPath(spec.path);
    paths[path] ??= {};
    paths[path][spec.method] = operation(spec, maxBodyBytes);
  }
  return {
    openapi: OPENAPI_VERSION,
    info,
    paths,
    components: {
      securitySchemes: {
        [COOKIE_AUTH]: { type: "apiKey", in: "cookie", name: cookieName },
        [BEARER_AUTH]: { type: "http", scheme: "bearer" },
      },
    },
  };
}
