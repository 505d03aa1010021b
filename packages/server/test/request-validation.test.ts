import { request as httpRequest } from "node:http";
import { describe, expect, it } from "vitest";
import { adminSession, type ErrorBody, readJson, request, startTestServer } from "./helpers.js";

/** A raw HTTP request whose path is sent exactly as written (fetch would normalise `..`). */
function rawRequest(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string | Buffer,
): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }),
      );
    });
    req.on("error", reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

describe("request validation", () => {
  it("rejects path-traversal and malformed ids with 400 before any handler runs", async () => {
    const server = await startTestServer();
    const cookie = await adminSession(server);
    const headers = { cookie: `penguin_session=${cookie}`, origin: server.url };
    const ids = [
      "..%2F..%2Fetc%2Fpasswd",
      "..%2f..%2fserver%2fpenguin.db",
      ".hidden",
      "a.b",
      "a%00b",
      "a%5C..%5Cb",
      "-leading-dash",
      "x".repeat(129),
      "%E2%80%AEevil",
    ];
    for (const id of ids) {
      const response = await rawRequest(server.url, "DELETE", `/api/tokens/${id}`, headers);
      expect(response.status, id).toBe(400);
      expect(JSON.parse(response.body)).toMatchObject({ error: "invalid_request" });
    }
    // Dot segments (`..`, `%2e%2e`) are resolved by the URL parser before routing, so they can
    // only ever lead to another route of this API, never into the file system.
    for (const path of ["/api/tokens/..", "/api/tokens/%2e%2e", "/api/tokens/../../etc/passwd"]) {
      const climbing = await rawRequest(server.url, "DELETE", path, headers);
      expect(climbing.status, path).toBe(404);
    }
    // A well-formed id that does not exist is simply not found.
    expect((await request(server.url, "/api/tokens/abc-123", { method: "DELETE", cookie })).status).toBe(404);
  });

  it("refuses bodies over the limit with 413, whether or not they declare their length", async () => {
    const server = await startTestServer({ maxBodyBytes: 4096 });
    const cookie = await adminSession(server);
    const big = JSON.stringify({ name: "x".repeat(5000) });

    const declared = await request(server.url, "/api/tokens", { cookie, json: JSON.parse(big) });
    expect(declared.status).toBe(413);
    expect(await readJson<ErrorBody>(declared)).toMatchObject({ error: "payload_too_large" });

    const chunked = await rawRequest(
      server.url,
      "POST",
      "/api/tokens",
      {
        cookie: `penguin_session=${cookie}`,
        origin: server.url,
        "content-type": "application/json",
        "transfer-encoding": "chunked",
      },
      big,
    );
    expect(chunked.status).toBe(413);

    // The limit also guards the public login route.
    const login = await request(server.url, "/api/auth/login", {
      json: { username: "admin", password: "p".repeat(5000) },
    });
    expect(login.status).toBe(413);

    // A stranger's oversized body is refused as unauthenticated, before it is read.
    const stranger = await rawRequest(
      server.url,
      "POST",
      "/api/tokens",
      { "content-type": "application/json", "transfer-encoding": "chunked" },
      big,
    );
    expect(stranger.status).toBe(401);

    // Under the limit is fine.
    expect((await request(server.url, "/api/tokens", { cookie, json: { name: "small" } })).status).toBe(201);
  });

  it("answers 415 to bodies that are not JSON and 400 to JSON that does not parse or match", async () => {
    const server = await startTestServer();
    const cookie = await adminSession(server);
    const form = await request(server.url, "/api/tokens", {
      method: "POST",
      cookie,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "name=ci",
    });
    expect(form.status).toBe(415);

    const broken = await request(server.url, "/api/tokens", {
      method: "POST",
      cookie,
      headers: { "content-type": "application/json" },
      body: '{"name": ',
    });
    expect(broken.status).toBe(400);
    expect(await readJson<ErrorBody>(broken)).toMatchObject({ message: "the body is not valid JSON" });

    const mismatch = await request(server.url, "/api/tokens", { cookie, json: { name: 42 } });
    expect(mismatch.status).toBe(400);
    const body = await readJson<ErrorBody>(mismatch);
    expect(body.issues?.[0]).toMatchObject({ path: "body.name" });

    const binary = await request(server.url, "/api/tokens", {
      method: "POST",
      cookie,
      headers: { "content-type": "application/json" },
      body: Buffer.from([0xff, 0xfe, 0x00, 0x01]),
    });
    expect(binary.status).toBe(400);
  });
});
