import { request as httpRequest } from "node:http";
import { describe, expect, it } from "vitest";
import { adminSession, type ErrorBody, startTestServer } from "./helpers.js";

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A GET with a `Host` header of the test's choosing (fetch always sends the URL's own). */
function getWithHost(url: string, path: string, host: string, cookie?: string): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const sent = httpRequest(
      {
        hostname,
        port,
        path,
        method: "GET",
        headers: { host, ...(cookie ? { cookie: `penguin_session=${cookie}` } : {}) },
      },
      (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          body += chunk;
        });
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
        );
      },
    );
    sent.on("error", reject);
    sent.end();
  });
}

describe("the Host check (DNS rebinding)", () => {
  it("answers 421 when the Host header names another site, for the API and the web app alike", async () => {
    const server = await startTestServer();
    const cookie = await adminSession(server);
    for (const path of ["/api/health", "/api/auth/me", "/", "/index.html"]) {
      const rebound = await getWithHost(server.url, path, `attacker.example:${server.port}`, cookie);
      expect(rebound.status, path).toBe(421);
      expect(JSON.parse(rebound.body) as ErrorBody).toMatchObject({ error: "misdirected_request" });
    }
    // Names that start like an allowed one, or end in a dot.
    for (const host of ["localhost.attacker.example", "127.0.0.1.nip.example", "attacker.example.:80"]) {
      expect((await getWithHost(server.url, "/api/health", host)).status, JSON.stringify(host)).toBe(421);
    }
  });

  it("answers IP addresses, localhost, the allowed hosts and the hosts of the allowed origins", async () => {
    const server = await startTestServer({
      allowedHosts: ["Penguin.Example.com"],
      allowedOrigins: ["https://proxy.example.org:8443"],
    });
    const cookie = await adminSession(server);
    const hosts = [
      `127.0.0.1:${server.port}`,
      `localhost:${server.port}`,
      "app.localhost",
      "[::1]:7364",
      "192.0.2.10",
      "penguin.example.com",
      "PENGUIN.example.com.:443",
      "proxy.example.org",
    ];
    for (const host of hosts) {
      const answer = await getWithHost(server.url, "/api/auth/me", host, cookie);
      expect(answer.status, host).toBe(200);
    }
    expect((await getWithHost(server.url, "/api/health", "other.example.com")).status).toBe(421);
  });

  it("answers the name the server listens on", async () => {
    const server = await startTestServer({ host: "localhost" });
    expect(server.host).toBe("localhost");
    expect((await getWithHost(server.url, "/api/health", `localhost:${server.port}`)).status).toBe(200);
  });

  it("refuses an allowed host that is not a host name", async () => {
    await expect(startTestServer({ allowedHosts: ["https://penguin.example.com/path"] })).rejects.toThrow(
      /allowed host .* is not a host name/,
    );
  });
});

describe("JSON answers", () => {
  it("carry Cache-Control: no-store and X-Content-Type-Options: nosniff, errors included", async () => {
    const server = await startTestServer();
    const cookie = await adminSession(server);
    const answers = [
      await getWithHost(server.url, "/api/health", `127.0.0.1:${server.port}`),
      await getWithHost(server.url, "/api/auth/me", `127.0.0.1:${server.port}`, cookie),
      await getWithHost(server.url, "/api/tokens", `127.0.0.1:${server.port}`),
      await getWithHost(server.url, "/api/no-such-route", `127.0.0.1:${server.port}`, cookie),
      await getWithHost(server.url, "/api/health", "attacker.example"),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 401, 404, 421]);
    for (const answer of answers) {
      expect(answer.headers["content-type"]).toMatch(/^application\/json/);
      expect(answer.headers["cache-control"]).toBe("no-store");
      expect(answer.headers["x-content-type-options"]).toBe("nosniff");
    }
  });
});
