import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { packagedWebRoot, type RunningServer, startServer } from "@penguin/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** The server serves the app it ships (dist/web, copied from this package's build) at "/". */
describe("the web app served by @penguin/server", () => {
  let dataRoot: string;
  let server: RunningServer;
  let apiOnly: RunningServer;

  beforeAll(async () => {
    dataRoot = await mkdtemp(join(tmpdir(), "penguin-web-serve-"));
    server = await startServer({ dataRoot: join(dataRoot, "a"), port: 0 });
    apiOnly = await startServer({ dataRoot: join(dataRoot, "b"), port: 0, webRoot: false });
  });
  afterAll(async () => {
    await server?.close();
    await apiOnly?.close();
    await rm(dataRoot, { recursive: true, force: true });
  });

  const get = (path: string, init: RequestInit = {}) => fetch(new URL(path, server.url), init);

  it("ships the built app inside the server package", () => {
    expect(packagedWebRoot()).toMatch(/packages[/\\]server[/\\]dist[/\\]web[/\\]?$/);
  });

  it("serves index.html at / without a login, with a content security policy", async () => {
    const response = await get("/");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(response.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(response.headers.get("cache-control")).toBe("no-cache");
    expect(await response.text()).toContain('<div id="root"></div>');
  });

  it("serves the hashed assets as immutable files with their content type", async () => {
    const html = await (await get("/")).text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    const style = /href="(\/assets\/[^"]+\.css)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    expect(style).toBeDefined();
    const js = await get(script!);
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(js.headers.get("cache-control")).toContain("immutable");
    expect(js.headers.get("x-content-type-options")).toBe("nosniff");
    expect((await get(style!)).headers.get("content-type")).toBe("text/css; charset=utf-8");

    const head = await get(script!, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get("content-length"))).toBeGreaterThan(1000);
    expect(await head.text()).toBe("");
  });

  it("answers index.html for app paths and 404 for missing files", async () => {
    const deep = await get("/sessions/some-id/trace");
    expect(deep.status).toBe(200);
    expect(await deep.text()).toContain('<div id="root"></div>');
    expect((await get("/assets/missing-file.js")).status).toBe(404);
    expect((await get("/favicon.ico")).status).toBe(404);
  });

  it("never serves a file outside the app's folder", async () => {
    for (const path of [
      "/..%2f..%2f..%2fpackage.json",
      "/..%2f..%2fsrc",
      "/assets/..%2f..%2f..%2f..%2fpackage.json",
      "/%2e%2e/%2e%2e/package.json",
      "/..%5c..%5cpackage.json",
      "/%00index.html",
      "/%E0%A4%A",
    ]) {
      const response = await get(path);
      expect(response.status, path).toBe(404);
      expect(await response.text(), path).toBe("not found");
    }
  });

  it("keeps every /api path behind the login, whatever the method", async () => {
    for (const path of ["/api", "/api/", "/api/sessions", "/api/no-such-route", "/api/openapi.json"]) {
      const response = await get(path);
      expect(response.status, path).toBe(401);
      expect(await response.json(), path).toMatchObject({ error: "unauthorized" });
    }
    expect((await get("/api/health")).status).toBe(200);
    // Only GET and HEAD reach the files; anything else goes to the API's rules.
    expect((await get("/", { method: "POST" })).status).toBe(401);
  });

  it("serves the API alone when started with webRoot: false", async () => {
    expect((await fetch(new URL("/", apiOnly.url))).status).toBe(401);
    expect((await fetch(new URL("/api/health", apiOnly.url))).status).toBe(200);
  });
});
