import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineRoute, type RunningServer } from "../src/index.js";
import { adminSession, type ErrorBody, readJson, request, startTestServer } from "./helpers.js";

/** The only routes anyone may call: "Auth on every route but health" (and login, to get in at all). */
const PUBLIC_ROUTES = new Set(["GET /api/health", "POST /api/auth/login"]);

/** Every method + path the app has registered, found in the app itself so a new route cannot escape. */
function registeredRoutes(server: RunningServer): { method: string; path: string }[] {
  const seen = new Map<string, { method: string; path: string }>();
  for (const route of server.app.routes) {
    // Global middleware (auth, body limit, request log) is registered as ALL /*.
    if (route.method === "ALL" && route.path === "/*") continue;
    const methods = route.method === "ALL" ? ["GET", "POST", "PUT", "PATCH", "DELETE"] : [route.method];
    for (const method of methods) seen.set(`${method} ${route.path}`, { method, path: route.path });
  }
  return [...seen.values()];
}

/** A concrete URL for a route pattern: each `:param` becomes a well-formed id. */
function concretePath(pattern: string): string {
  return pattern.replace(/:[A-Za-z0-9_]+/g, "abc-123");
}

const extraRoute = defineRoute({
  method: "get",
  path: "/api/extra/:id",
  summary: "A route added through the routes option",
  tag: "test",
  access: "user",
  responses: { 200: { description: "ok" } },
  params: z.object({ id: z.string() }),
  handle: (c, { params }) => c.json({ id: params.id }),
});

describe("authentication on every route", () => {
  it("answers 401 JSON to every registered route called without credentials", async () => {
    const server = await startTestServer({ routes: [extraRoute] });
    const routes = registeredRoutes(server);
    expect(routes.length).toBeGreaterThanOrEqual(10);
    expect(routes.map((route) => `${route.method} ${route.path}`)).toContain("GET /api/extra/:id");
    for (const route of routes) {
      const key = `${route.method} ${route.path}`;
      if (PUBLIC_ROUTES.has(key)) continue;
      for (const credentials of [
        {},
        { bearer: "pgn_not-a-real-token" },
        { cookie: "forged-session-value" },
      ]) {
        const response = await request(server.url, concretePath(route.path), {
          method: route.method,
          ...credentials,
          ...(route.method === "GET" || route.method === "DELETE" ? {} : { json: {} }),
        });
        expect(response.status, `${key} with ${JSON.stringify(credentials)}`).toBe(401);
        expect(await readJson<ErrorBody>(response)).toMatchObject({ error: "unauthorized" });
      }
    }
  });

  it("leaves only health and login public", async () => {
    const server = await startTestServer();
    const health = await request(server.url, "/api/health");
    expect(health.status).toBe(200);
    expect(await readJson(health)).toMatchObject({ status: "ok" });
    const login = await request(server.url, "/api/auth/login", {
      json: { username: "admin", password: "nope" },
    });
    expect(login.status).toBe(401);
    // A route that almost matches a public one is not public.
    expect((await request(server.url, "/api/health/")).status).toBe(401);
    expect((await request(server.url, "/api/health", { method: "POST", json: {} })).status).toBe(401);
  });

  it("answers 401 to unknown paths without credentials and a JSON 404 with them", async () => {
    const server = await startTestServer();
    const anonymous = await request(server.url, "/api/no-such-thing");
    expect(anonymous.status).toBe(401);
    const cookie = await adminSession(server);
    const known = await request(server.url, "/api/no-such-thing", { cookie });
    expect(known.status).toBe(404);
    expect(known.headers.get("content-type")).toMatch(/application\/json/);
    expect(await readJson<ErrorBody>(known)).toMatchObject({ error: "not_found" });
  });

  it("accepts a malformed Authorization header as nothing but a 401, never falling back to the cookie", async () => {
    const server = await startTestServer();
    const cookie = await adminSession(server);
    for (const authorization of [
      "Basic YWRtaW46YWRtaW4=",
      "Bearer",
      "Bearer a b",
      `Bearer ${"x".repeat(600)}`,
    ]) {
      const response = await request(server.url, "/api/auth/me", { cookie, headers: { authorization } });
      expect(response.status, authorization.slice(0, 20)).toBe(401);
    }
  });
});
