import { z } from "zod";
import { ErrorResponseSchema } from "./errors.js";
import type { AnyRouteSpec } from "./route.js";

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

function operation(spec: AnyRouteSpec): JsonObject {
  const responses: JsonObject = {};
  for (const [status, response] of Object.entries(spec.responses)) {
    responses[status] = {
      description: response.description,
      ...(response.schema
        ? { content: { "application/json": { schema: jsonSchema(response.schema, "output") } } }
        : {}),
    };
  }
  const errorContent = { "application/json": { schema: jsonSchema(ErrorResponseSchema, "output") } };
  if (spec.access !== "public") {
    responses["401"] ??= { description: "Not logged in and no valid bearer token", content: errorContent };
  }
  if (spec.params || spec.body || spec.query) {
    responses["400"] ??= { description: "Invalid path parameter, query or body", content: errorContent };
  }
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
): JsonObject {
  const paths: Record<string, JsonObject> = {};
  for (const spec of routes) {
    const path = openApiPath(spec.path);
    paths[path] ??= {};
    paths[path][spec.method] = operation(spec);
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
