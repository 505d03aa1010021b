import { mkdirSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { type AddressInfo, createServer } from "node:net";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, test } from "vitest";
import { CLI_BIN, REPO_ROOT, tempDir, withLoadLog } from "./helpers.js";
import { loadedPackages } from "./loaded-packages.js";

const SERVER = /@penguin\/server|packages\/server\//;

describe("the server is loaded by penguin serve only", () => {
  test("--version and a replay run never load @penguin/server", async () => {
    const version = withLoadLog(["--version"]);
    expect((await version.child).exitCode).toBe(0);
    expect(version.loads()).toContain("dist/bin.cjs");
    expect(version.loads()).not.toMatch(SERVER);

    const cassette = join(REPO_ROOT, "examples/quickstart.cassette.yaml");
    const run = withLoadLog(["run", "--model", `replay:${cassette}`, "-w", tempDir("ws"), "-m", "fib"], {
      PENGUIN_HOME: tempDir("data"),
    });
    const r = await run.child;
    expect(r.exitCode).toBe(0);
    // yaml (inlined in the CLI's chunks) shows that the cassette was read: the log is not empty.
    const loads = loadedPackages(run.loads());
    expect(loads).toContain("yaml");
    expect(loads).not.toContain("@penguin/server");
    expect(run.loads()).not.toMatch(SERVER);
  });

  test("penguin serve starts the server, answers HTTP and stops on SIGTERM", async () => {
    const dataRoot = tempDir("data");
    const serve = withLoadLog(["serve", "--port", "0", "--data-dir", dataRoot]);
    let stderr = "";
    const url = await new Promise<string>((resolveUrl, reject) => {
      const timer = setTimeout(() => reject(new Error(`no listening line: ${stderr}`)), 30_000);
      serve.child.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
        const match = /listening on (http:\/\/\S+)/.exec(stderr);
        if (match) {
          clearTimeout(timer);
          resolveUrl(match[1]);
        }
      });
    });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await fetch(url);
    expect(response.status).toBeLessThan(500);
    expect(stderr).toMatch(/username: admin/);
    serve.child.kill("SIGTERM");
    expect((await serve.child).exitCode).toBe(0);
    expect(serve.loads()).toMatch(SERVER);
    // The check the other tests make (`not.toContain("@penguin/server")`) sees the server when it loads.
    expect(loadedPackages(serve.loads())).toContain("@penguin/server");
  });

  test("a port already in use is one line saying so, not a stack trace", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as AddressInfo).port;
    try {
      const r = await execa(
        process.execPath,
        [CLI_BIN, "serve", "--host", "127.0.0.1", "--port", String(port), "--data-dir", tempDir("data")],
        { reject: false },
      );
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toContain(
        `penguin serve cannot listen on 127.0.0.1:${port} is already in use: stop what listens there or pick another --port`,
      );
      expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
    } finally {
      blocker.close();
    }
  });

  test("a port that is not a number is a usage error", async () => {
    const r = await execa(process.execPath, [CLI_BIN, "serve", "--port", "http"], { reject: false });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--port takes a port number/);
    const metrics = await execa(process.execPath, [CLI_BIN, "serve", "--metrics-port", "-1"], {
      reject: false,
    });
    expect(metrics.exitCode).toBe(2);
    expect(metrics.stderr).toMatch(/--metrics-port takes a port number/);
  });
});

interface ServeProcess {
  url: string;
  password: string;
  stop(): Promise<void>;
  /** What it has printed on stderr so far. */
  stderr(): string;
}

const running: ServeProcess[] = [];
afterEach(async () => {
  while (running.length > 0) await running.pop()!.stop();
});

/** `penguin serve` on a free port with a fresh data root and `args`; resolves once it listens. */
async function serve(args: string[]): Promise<ServeProcess> {
  const child = execa(
    process.execPath,
    [CLI_BIN, "serve", "--port", "0", "--data-dir", tempDir("data"), ...args],
    {
      reject: false,
      timeout: 60_000,
    },
  );
  let stderr = "";
  const started = await new Promise<{ url: string; password: string }>((resolveStart, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), 30_000);
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      const url = /listening on (http:\/\/\S+)/.exec(stderr)?.[1];
      const password = /password: (\S+)/.exec(stderr)?.[1];
      if (url && password) {
        clearTimeout(timer);
        resolveStart({ url, password });
      }
    });
  });
  const process_: ServeProcess = {
    ...started,
    stderr: () => stderr,
    async stop() {
      child.kill("SIGTERM");
      await child;
    },
  };
  running.push(process_);
  return process_;
}

function post(url: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(new URL(path, url), {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

/** Logs in as the first admin and chooses a password; returns the cookie header. */
async function adminCookie(server: ServeProcess, origin = server.url): Promise<string> {
  const login = await post(server.url, "/api/auth/login", { username: "admin", password: server.password });
  expect(login.status).toBe(200);
  const cookie = login.headers.getSetCookie()[0].split(";")[0];
  const changed = await post(
    server.url,
    "/api/auth/password",
    { current_password: server.password, new_password: "a long new password" },
    { cookie, origin },
  );
  expect(changed.status).toBe(204);
  return cookie;
}

describe("penguin serve security options", () => {
  test("--secure-cookies marks the session cookie Secure; without it the cookie is not", async () => {
    const secure = await serve(["--secure-cookies"]);
    const login = await post(secure.url, "/api/auth/login", { username: "admin", password: secure.password });
    expect(login.status).toBe(200);
    expect(login.headers.getSetCookie()[0]).toMatch(/; Secure(;|$)/);

    const plain = await serve([]);
    const plainLogin = await post(plain.url, "/api/auth/login", {
      username: "admin",
      password: plain.password,
    });
    expect(plainLogin.headers.getSetCookie()[0]).not.toMatch(/Secure/);
  });

  test("--allowed-origin lets a cookie POST from that origin pass the CSRF check, and no other", async () => {
    const server = await serve([
      "--allowed-origin",
      "https://proxy.example",
      "--allowed-origin",
      "https://other.example",
    ]);
    // The password change is a cookie-authenticated POST: it passes only with an accepted Origin.
    const cookie = await adminCookie(server, "https://proxy.example");
    const fromOther = await post(
      server.url,
      "/api/tokens",
      { name: "x" },
      { cookie, origin: "https://other.example" },
    );
    expect(fromOther.status).toBe(201);
    const foreign = await post(
      server.url,
      "/api/tokens",
      { name: "y" },
      { cookie, origin: "https://evil.example" },
    );
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ error: "forbidden_origin" });
  });

  test("--allowed-host lets requests naming that host through the Host check, and no other name", async () => {
    const server = await serve(["--allowed-host", "penguin.example.com"]);
    const { hostname, port } = new URL(server.url);
    const statusFor = (host: string) =>
      new Promise<number>((resolveStatus, reject) => {
        const sent = httpRequest({ hostname, port, path: "/api/health", headers: { host } }, (response) => {
          response.resume();
          resolveStatus(response.statusCode ?? 0);
        });
        sent.on("error", reject);
        sent.end();
      });
    expect(await statusFor(`penguin.example.com:${port}`)).toBe(200);
    expect(await statusFor(`attacker.example:${port}`)).toBe(421);
  });

  test("--workspace-root confines session workspaces", async () => {
    const allowed = tempDir("roots");
    const project = join(allowed, "project");
    mkdirSync(project);
    const outside = tempDir("outside");
    const server = await serve(["--workspace-root", allowed]);
    const cookie = await adminCookie(server);
    const refused = await post(
      server.url,
      "/api/sessions",
      { workspace: outside },
      { cookie, origin: server.url },
    );
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      error: "invalid_workspace",
      message: expect.stringMatching(/outside the folders this server allows/),
    });
    // Inside the root the workspace is accepted (the session may still fail for want of a model).
    const inside = await post(
      server.url,
      "/api/sessions",
      { workspace: project },
      { cookie, origin: server.url },
    );
    expect(await inside.json()).not.toMatchObject({ error: "invalid_workspace" });
  });

  test("--metrics-port serves Prometheus metrics on the loopback address, even with --host 0.0.0.0", async () => {
    const server = await serve(["--host", "0.0.0.0", "--metrics-port", "0"]);
    const url = /metrics \(Prometheus\) on (http:\/\/\S+)/.exec(server.stderr())?.[1];
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const response = await fetch(url ?? "");
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("# TYPE penguin_tool_calls_total counter");
  });

  test("malformed security options are usage errors", async () => {
    for (const [args, message] of [
      [["--allowed-origin", "https://proxy.example/"], /--allowed-origin takes an origin/],
      [["--allowed-origin", "proxy.example"], /--allowed-origin takes an origin/],
      [["--advertise-url", "10.0.0.5:7364"], /--advertise-url takes an origin/],
      [["--advertise-url", "http://10.0.0.5:7364/penguin"], /--advertise-url takes an origin/],
      [
        ["--workspace-root", join(tempDir("roots"), "missing")],
        /--workspace-root .* is not an existing folder/,
      ],
      [["--trusted-proxy", "proxy.example"], /--trusted-proxy takes an IP address/],
      [["--allowed-host", "https://penguin.example.com"], /--allowed-host takes a host name/],
      [["--max-streams-per-user", "0"], /--max-streams-per-user takes a whole number/],
      [["--idle-release", "soon"], /--idle-release takes a number of minutes/],
      [["--traces", "s3"], /--traces takes files or database, not "s3"/],
      [["--traces", "database"], /--traces database keeps the traces in a PostgreSQL database/],
    ] as const) {
      const r = await execa(process.execPath, [CLI_BIN, "serve", "--port", "0", ...args], { reject: false });
      expect(r.exitCode, args.join(" ")).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });
});
