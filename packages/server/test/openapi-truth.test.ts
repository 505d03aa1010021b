import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { MAX_BODY_BYTES, MAX_IMAGE_URL_CHARS, MAX_TASK_IMAGES } from "../src/limits.js";
import { adminSession, type ErrorBody, readJson, request, startTestServer } from "./helpers.js";
import { checkResponsesAgainst, openApiMismatch, stopCheckingResponses } from "./openapi-check.js";

interface Operation {
  requestBody?: { content: { "application/json": { schema: object } } };
  responses: Record<string, { description: string; content?: { "application/json": { schema: object } } }>;
}
type Paths = Record<string, Record<string, Operation>>;

const ajv = new Ajv2020({ strict: false, validateFormats: false });

describe("the OpenAPI document is the truth", () => {
  it("answers 405 with Allow for a method a documented path does not serve", async () => {
    const server = await startTestServer();
    const cookie = await adminSession(server);
    const put = await request(server.url, "/api/tokens", { method: "PUT", cookie });
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toBe("GET, HEAD, POST");
    expect(await readJson<ErrorBody>(put)).toMatchObject({ error: "method_not_allowed" });
    const patch = await request(server.url, "/api/sessions/abc/tasks", { method: "PATCH", cookie });
    expect(patch.status).toBe(405);
    expect(patch.headers.get("allow")).toBe("POST");
    // HEAD is served wherever GET is; an unknown path stays a 404, and strangers still get 401.
    expect((await request(server.url, "/api/tokens", { method: "HEAD", cookie })).status).toBe(200);
    expect((await request(server.url, "/api/nothing", { method: "PUT", cookie })).status).toBe(404);
    expect((await request(server.url, "/api/tokens", { method: "PUT" })).status).toBe(401);
  });

  it("documents the shared 400, 403, 413, 415 and 421 answers, and a route's own 400 besides invalid_request", async () => {
    const server = await startTestServer();
    const paths = server.openApiDocument().paths as Paths;
    const createAgent = paths["/api/agents"].post.responses;
    expect(Object.keys(createAgent)).toEqual(
      expect.arrayContaining(["400", "401", "403", "413", "415", "421"]),
    );
    const badRequest = ajv.compile(createAgent["400"].content!["application/json"].schema);
    expect(badRequest({ error: "invalid_request", message: "the body is not valid JSON" })).toBe(true);
    expect(badRequest({ error: "invalid_config", message: "x", config_errors: [] })).toBe(true);
    expect(paths["/api/auth/login"].post.responses["413"].description).toContain(String(MAX_BODY_BYTES));
    // A GET route has no body, so no 413 or 415.
    expect(paths["/api/tokens"].get.responses["413"]).toBeUndefined();

    // Over HTTP: an invalid JSON body to the agents route is a documented answer.
    const cookie = await adminSession(server);
    const invalid = await request(server.url, "/api/agents", {
      method: "POST",
      cookie,
      headers: { "content-type": "application/json" },
      body: "{",
    });
    expect(invalid.status).toBe(400);
    const foreign = await request(server.url, "/api/tokens", {
      cookie,
      origin: "https://evil.example",
      json: { name: "x" },
    });
    expect(foreign.status).toBe(403);
    const notJson = await request(server.url, "/api/tokens", { method: "POST", cookie, body: "name=x" });
    expect(notJson.status).toBe(415);
  });

  it("states the rules the server enforces: absolute workspaces, image URLs, a non-empty PATCH, one-line titles", async () => {
    const server = await startTestServer();
    const paths = server.openApiDocument().paths as Paths;
    const bodySchema = (path: string, method: string) =>
      ajv.compile(paths[path][method].requestBody!.content["application/json"].schema);
    const create = bodySchema("/api/sessions", "post");
    expect(create({ workspace: "/home/me/project" })).toBe(true);
    expect(create({ workspace: "relative/project" })).toBe(false);
    const patch = bodySchema("/api/sessions/{id}", "patch");
    expect(patch({ title: "ok" })).toBe(true);
    expect(patch({})).toBe(false);
    expect(patch({ title: "two\nlines" })).toBe(false);
    const task = bodySchema("/api/sessions/{id}/tasks", "post");
    expect(task({ input: "x", images: ["data:image/png;base64,iVBORw0KGgo="] })).toBe(true);
    expect(task({ input: "x", images: ["https://example.com/cat.png"] })).toBe(true);
    expect(task({ input: "x", images: ["file:///etc/passwd"] })).toBe(false);
    expect(task({ input: "x", images: ["data:text/html;base64,PGI+"] })).toBe(false);

    // The server refuses what the document refuses, with the documented 400.
    const cookie = await adminSession(server);
    const relative = await request(server.url, "/api/sessions", {
      cookie,
      json: { workspace: "relative/project" },
    });
    expect(relative.status).toBe(400);
    expect(await readJson<ErrorBody>(relative)).toMatchObject({ error: "invalid_request" });
    const empty = await request(server.url, "/api/sessions/abc", { method: "PATCH", cookie, json: {} });
    expect(empty.status).toBe(400);
  });

  it("accepts a task body at every documented limit: 8 images of 900,000 characters", async () => {
    const server = await startTestServer();
    const cookie = await adminSession(server);
    const image = `data:image/png;base64,${"A".repeat(MAX_IMAGE_URL_CHARS - "data:image/png;base64,".length)}`;
    const images = Array.from({ length: MAX_TASK_IMAGES }, () => image);
    // No such session: a 404 means the body got through the size limit and the schema.
    const answer = await request(server.url, "/api/sessions/no-such-session/tasks", {
      cookie,
      json: { input: "describe these", images },
    });
    expect(answer.status).toBe(404);
    const tooMany = await request(server.url, "/api/sessions/no-such-session/tasks", {
      cookie,
      json: { input: "describe these", images: [...images, image] },
    });
    expect(tooMany.status).toBe(400);
  });

  it("the answer check fails an answer the document does not describe", async () => {
    const server = await startTestServer();
    // Checked by hand here: through `request` these would fail this test.
    stopCheckingResponses(server.url);
    checkResponsesAgainst(server.url, server.openApiDocument());
    const at = (path: string) => `${server.url}${path}`;
    const json = "application/json";
    expect(
      openApiMismatch("GET", at("/api/health"), {
        status: 200,
        contentType: json,
        body: '{"status":"ok","version":"1"}',
      }),
    ).toBeUndefined();
    expect(openApiMismatch("GET", at("/api/health"), { status: 418, contentType: json, body: "{}" })).toMatch(
      /not documented/,
    );
    expect(
      openApiMismatch("GET", at("/api/health"), {
        status: 200,
        contentType: json,
        body: '{"status":"down"}',
      }),
    ).toMatch(/does not match/);
    expect(
      openApiMismatch("PUT", at("/api/health"), {
        status: 404,
        contentType: json,
        body: '{"error":"not_found"}',
      }),
    ).toMatch(/405/);
    expect(
      openApiMismatch("GET", at("/api/nothing"), { status: 405, contentType: json, body: '{"error":"x"}' }),
    ).toMatch(/404/);
  });
});
