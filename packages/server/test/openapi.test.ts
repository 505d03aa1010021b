import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { adminSession, request, startTestServer } from "./helpers.js";

interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, unknown> };
}

interface Operation {
  operationId: string;
  security: unknown[];
  parameters?: { name: string; in: string; schema: object }[];
  requestBody?: { content: { "application/json": { schema: object } } };
  responses: Record<string, { description: string; content?: { "application/json": { schema: object } } }>;
}

function schemasOf(operation: Operation): object[] {
  return [
    ...(operation.parameters ?? []).map((parameter) => parameter.schema),
    ...(operation.requestBody ? [operation.requestBody.content["application/json"].schema] : []),
    ...Object.values(operation.responses).flatMap((response) =>
      response.content ? [response.content["application/json"].schema] : [],
    ),
  ];
}

describe("GET /api/openapi.json", () => {
  it("is an OpenAPI 3.1 document listing every registered route, with valid JSON Schemas", async () => {
    const server = await startTestServer();
    expect((await request(server.url, "/api/openapi.json")).status).toBe(401);
    const cookie = await adminSession(server);
    const response = await request(server.url, "/api/openapi.json", { cookie });
    expect(response.status).toBe(200);
    const document = JSON.parse(await response.text()) as OpenApiDocument;
    expect(document.openapi).toBe("3.1.0");
    expect(document.info.title).toBe("Penguin server API");
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual(["bearerAuth", "cookieAuth"]);

    // Every route the app serves is described, under its OpenAPI path.
    const registered = server.app.routes
      // Middleware and the 405 answers of known paths are registered for every method.
      .filter((route) => route.method !== "ALL")
      .map((route) => `${route.method.toLowerCase()} ${route.path.replace(/:([A-Za-z0-9_]+)/g, "{$1}")}`);
    const described = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method} ${path}`),
    );
    expect(described.sort()).toEqual([...new Set(registered)].sort());
    expect(described).toEqual(
      expect.arrayContaining([
        "get /api/health",
        "post /api/auth/login",
        "post /api/auth/password",
        "delete /api/tokens/{id}",
        "post /api/users",
      ]),
    );

    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    const operationIds = new Set<string>();
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        operationIds.add(operation.operationId);
        const where = `${method} ${path}`;
        if (operation.security.length > 0) expect(operation.responses["401"], where).toBeDefined();
        for (const schema of schemasOf(operation)) expect(() => ajv.compile(schema), where).not.toThrow();
      }
    }
    expect(operationIds.size).toBe(described.length);

    // The request schemas are the ones the server validates with.
    const login = document.paths["/api/auth/login"].post;
    const validate = ajv.compile(login.requestBody!.content["application/json"].schema);
    expect(validate({ username: "a", password: "b" })).toBe(true);
    expect(validate({ username: "a" })).toBe(false);
    expect(validate({ username: "a", password: "b", extra: 1 })).toBe(false);
    const tokenId = document.paths["/api/tokens/{id}"].delete.parameters![0];
    expect(tokenId).toMatchObject({ name: "id", in: "path" });
    const validateId = ajv.compile(tokenId.schema);
    expect(validateId("abc-123")).toBe(true);
    expect(validateId("../etc")).toBe(false);

    // And what the server sends matches the response schemas it documents.
    const responseSchema = (path: string, method: string, status: string) =>
      ajv.compile(document.paths[path][method].responses[status].content!["application/json"].schema);
    const created = await request(server.url, "/api/tokens", { cookie, json: { name: "doc" } });
    const checks: [Response, string, string, string][] = [
      [created, "/api/tokens", "post", "201"],
      [await request(server.url, "/api/tokens", { cookie }), "/api/tokens", "get", "200"],
      [await request(server.url, "/api/auth/me", { cookie }), "/api/auth/me", "get", "200"],
      [await request(server.url, "/api/users", { cookie }), "/api/users", "get", "200"],
      [await request(server.url, "/api/health"), "/api/health", "get", "200"],
      [await request(server.url, "/api/users", { cookie, json: {} }), "/api/users", "post", "400"],
    ];
    for (const [sent, path, method, status] of checks) {
      expect(String(sent.status), path).toBe(status);
      const check = responseSchema(path, method, status);
      expect(check(await sent.json()), `${method} ${path}: ${JSON.stringify(check.errors)}`).toBe(true);
    }
  });
});
