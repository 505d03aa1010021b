import { describe, expect, it } from "vitest";
import { adminSession, type ErrorBody, readJson, request, startTestServer } from "./helpers.js";

describe("CSRF: cookie-authenticated changes need this server's Origin", () => {
  it("refuses a cookie POST without Origin or from another origin, and accepts a same-origin one", async () => {
    const server = await startTestServer();
    const cookie = await adminSession(server);
    const post = (origin: string | null) =>
      request(server.url, "/api/tokens", { cookie, origin, json: { name: "t" } });

    const missing = await post(null);
    expect(missing.status).toBe(403);
    expect(await readJson<ErrorBody>(missing)).toMatchObject({ error: "forbidden_origin" });
    for (const origin of ["https://evil.example", "null", "http://127.0.0.1:1", "not a url"]) {
      expect((await post(origin)).status, origin).toBe(403);
    }
    expect((await post(server.url)).status).toBe(201);
    // Behind a TLS proxy that keeps Host, the https origin of the same host is this server too.
    expect((await post(server.url.replace("http:", "https:"))).status).toBe(201);
    // Reads need no Origin.
    expect((await request(server.url, "/api/tokens", { cookie, origin: null })).status).toBe(200);
    // Nor do DELETEs with a bearer token, which a browser never attaches by itself.
    const token = await readJson<{ id: string; token: string }>(await post(server.url));
    const revoke = await request(server.url, `/api/tokens/${token.id}`, {
      method: "DELETE",
      bearer: token.token,
      origin: "https://evil.example",
    });
    expect(revoke.status).toBe(204);
  });

  it("accepts configured origins (a proxy that rewrites Host)", async () => {
    const server = await startTestServer({ allowedOrigins: ["https://penguin.example.com"] });
    const cookie = await adminSession(server);
    const response = await request(server.url, "/api/tokens", {
      cookie,
      origin: "https://penguin.example.com",
      json: { name: "t" },
    });
    expect(response.status).toBe(201);
  });

  it("refuses a login posted from another site's page", async () => {
    const server = await startTestServer();
    const body = { username: "admin", password: server.initialAdmin!.password };
    const foreign = await request(server.url, "/api/auth/login", {
      json: body,
      origin: "https://evil.example",
    });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.getSetCookie()).toEqual([]);
    // API clients without an Origin header can still log in.
    expect((await request(server.url, "/api/auth/login", { json: body })).status).toBe(200);
  });
});
