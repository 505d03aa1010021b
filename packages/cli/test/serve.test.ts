import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, test } from "vitest";
import { CLI_BIN, REPO_ROOT, tempDir, withLoadLog } from "./helpers.js";

const SERVER = /@penguin\/server|packages\/server\//;

describe("the server is loaded by penguin serve only", () => {
  test("--version and a replay run never load @penguin/server", async () => {
    const version = withLoadLog(["--version"]);
    expect((await version.child).exitCode).toBe(0);
    expect(version.loads()).toContain("dist/bin.js");
    expect(version.loads()).not.toMatch(SERVER);

    const cassette = join(REPO_ROOT, "examples/quickstart.cassette.yaml");
    const run = withLoadLog(["run", "--model", `replay:${cassette}`, "-w", tempDir("ws"), "-m", "fib"], {
      PENGUIN_HOME: tempDir("data"),
    });
    const r = await run.child;
    expect(r.exitCode).toBe(0);
    expect(run.loads()).toMatch(/\/node_modules\/yaml\//);
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
  });

  test("a port that is not a number is a usage error", async () => {
    const r = await execa(process.execPath, [CLI_BIN, "serve", "--port", "http"], { reject: false });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--port takes a port number/);
  });
});
