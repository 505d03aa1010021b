import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { nodeHttpFetch } from "../../src/models/http/node-http-fetch.js";
import { ProcessManager } from "../../src/tools/command/index.js";
import { alive, waitUntil } from "../jobs/support.js";
import { context, execTool, runCall, runToEnd, tempWorkspace } from "./helpers.js";

// A session's login-environment capture waits for the session's first model request to be sent
// (`start: "after-request"`), so that spawning the login shell does not delay that request. A
// real HTTP request to a local server starts it, through the provider fetch over node:http (what
// the model SDKs use) or Node's own `fetch` (a tool's); a command that comes first starts it too. The profile counts its runs (a line in `sourced.log`).

let workspace: { dir: string; cleanup: () => void };
let managers: ProcessManager[] = [];
let server: Server | undefined;

beforeEach(() => {
  workspace = tempWorkspace();
  const home = join(workspace.dir, "home");
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, ".bash_profile"), 'echo run >> "$HOME/sourced.log"\nexport FROM_PROFILE=yes\n');
});
afterEach(async () => {
  await Promise.all(managers.map((m) => m.disposeAll()));
  managers = [];
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
  workspace.cleanup();
});

const sourcedLog = () => join(workspace.dir, "home", "sourced.log");
const sourcedCount = () =>
  existsSync(sourcedLog()) ? readFileSync(sourcedLog(), "utf8").split("\n").filter(Boolean).length : 0;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function deferredManager(): ProcessManager {
  const processes = new ProcessManager({
    baseEnv: { PATH: process.env.PATH, HOME: join(workspace.dir, "home") },
    loginEnvironment: {
      mode: "once",
      cwd: workspace.dir,
      dir: join(workspace.dir, "scratch"),
      start: "after-request",
    },
  });
  managers.push(processes);
  return processes;
}

type Client = typeof fetch | typeof nodeHttpFetch;

/** One POST to a local server, as a model request is sent (through the provider fetch by default). */
async function sendRequest(client: Client = nodeHttpFetch): Promise<void> {
  server ??= await new Promise<Server>((resolve) => {
    const s = createServer((req, res) => {
      req.resume();
      req.on("end", () => res.end("ok"));
    });
    s.listen(0, "127.0.0.1", () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  const response = await client(`http://127.0.0.1:${port}/v1/chat/completions`, {
    method: "POST",
    body: JSON.stringify({ messages: [] }),
  });
  expect(await response.text()).toBe("ok");
}

/** Polls until the capture has run its shell (it starts on the loop turn after the request). */
async function captureStarted(processes: ProcessManager): Promise<void> {
  for (let i = 0; i < 100 && sourcedCount() === 0; i++) await pause(20);
  await processes.loginEnvironmentSettled();
}

const run = (processes: ProcessManager, cmd: string) => runToEnd(processes, cmd, workspace.dir);

describe("a login-environment capture that starts after the first request", () => {
  it.each([
    ["the provider fetch (node:http)", nodeHttpFetch],
    ["Node's fetch", fetch],
  ])(
    "runs no shell until a request is sent through %s, then captures once; commands source it",
    async (_name, client) => {
      const processes = deferredManager();
      await pause(300);
      expect(sourcedCount()).toBe(0);
      await sendRequest(client);
      await captureStarted(processes);
      expect(sourcedCount()).toBe(1);
      expect(
        await run(processes, 'echo "$FROM_PROFILE"; shopt -q login_shell && echo login || echo plain'),
      ).toBe("yes\nplain");
      // Later requests start nothing more.
      await sendRequest();
      await pause(100);
      expect(sourcedCount()).toBe(1);
    },
  );

  it("a command before any request runs as a login shell and starts the capture", async () => {
    const processes = deferredManager();
    expect(await run(processes, 'echo "$FROM_PROFILE"')).toBe("yes");
    await processes.loginEnvironmentSettled();
    // The command's own login shell and the capture.
    expect(sourcedCount()).toBe(2);
    expect(
      await run(processes, 'echo "$FROM_PROFILE"; shopt -q login_shell && echo login || echo plain'),
    ).toBe("yes\nplain");
    expect(sourcedCount()).toBe(2);
  });

  it("a manager disposed before any request never captures", async () => {
    const processes = deferredManager();
    await processes.disposeAll();
    await sendRequest();
    await pause(200);
    expect(sourcedCount()).toBe(0);
  });

  it("disposal during a capture ends the capture's shell and its helpers, and nothing more is written", async () => {
    // A profile that hangs with a helper of its own, after saying it runs (and their pids).
    const home = join(workspace.dir, "home");
    writeFileSync(
      join(home, ".bash_profile"),
      'echo $$ > "$HOME/shell.pid"; sleep 60 & echo $! > "$HOME/helper.pid"; wait\n',
    );
    const processes = deferredManager();
    await sendRequest();
    const pidOf = (name: string) =>
      existsSync(join(home, name)) ? Number(readFileSync(join(home, name), "utf8").trim()) || 0 : 0;
    for (let i = 0; i < 250 && pidOf("helper.pid") === 0; i++) await pause(20);
    const pids = [pidOf("shell.pid"), pidOf("helper.pid")];
    expect(pids.every((pid) => pid > 0)).toBe(true);
    await processes.disposeAll();
    // The shell has exited when disposal resolves; its helper got the same SIGKILL, whose delivery
    // a loaded machine may take a moment to schedule.
    expect(alive(pids[0] as number)).toBe(false);
    await waitUntil(() => !alive(pids[1] as number), "the profile's helper to end", 5_000);
    // The scratchpad keeps no capture files, and a dispose reports no failed capture.
    expect(readdirSync(join(workspace.dir, "scratch"))).toEqual([]);
    expect(processes.takeWarnings()).toEqual([]);
  });
});

describe("a command tool and a capture under way", () => {
  const profile = () => join(workspace.dir, "home", ".bash_profile");
  const slowProfile = (seconds: number) =>
    writeFileSync(
      profile(),
      `echo run >> "$HOME/sourced.log"\nsleep ${seconds}\nexport FROM_PROFILE=yes\nprofile_fn() { echo from-fn; }\n`,
    );
  const probe = 'echo "$FROM_PROFILE"; profile_fn; shopt -q login_shell && echo login || echo plain';

  it.each([
    ["after the first request, during the capture it started", sendRequest],
    ["before any request, during the capture the command starts", async () => {}],
  ])("exec_command %s waits for the capture instead of sourcing the profile beside it", async (_, before) => {
    slowProfile(0.3);
    const processes = deferredManager();
    await before();
    const call = await runCall(execTool(), { cmd: probe }, context(processes, workspace.dir));
    expect(call.output).toContain("yes\nfrom-fn\nplain");
    // The profile ran once: for the capture, not again for the command.
    expect(sourcedCount()).toBe(1);
  });

  it("a call aborted while it waits starts no command and does not wait for the capture's end", async () => {
    slowProfile(3);
    const processes = deferredManager();
    await sendRequest();
    let captureEnded = false;
    void processes.loginEnvironmentSettled().then(() => {
      captureEnded = true;
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const call = await runCall(
      execTool(),
      { cmd: 'touch "$HOME/started"' },
      context(processes, workspace.dir, controller.signal),
    );
    expect(call.result.stopReason).toBe("aborted");
    expect(captureEnded).toBe(false);
    expect(existsSync(join(workspace.dir, "home", "started"))).toBe(false);
  });

  it("without a capture (always), a command starts at once as a login shell", async () => {
    slowProfile(0);
    const processes = new ProcessManager({
      baseEnv: { PATH: process.env.PATH, HOME: join(workspace.dir, "home") },
      loginEnvironment: { mode: "always", cwd: workspace.dir, dir: join(workspace.dir, "scratch") },
    });
    managers.push(processes);
    const call = await runCall(execTool(), { cmd: probe }, context(processes, workspace.dir));
    expect(call.output).toContain("yes\nfrom-fn\nlogin");
    expect(sourcedCount()).toBe(1);
  });
});
