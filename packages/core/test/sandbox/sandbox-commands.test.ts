import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { builtinExecutionProfiles, type ExecutionProfile } from "@penguin/state";
import { ExecutionProfileSchema } from "@penguin/state/schemas";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Environment } from "../../src/environment/environment.js";
import { ProcessManager } from "../../src/processes/process-manager.js";
import { execTool } from "../command/helpers.js";
import { makeEnvironment, runCall, sleep, type TempDirs, tempDirs } from "../environment/support.js";
import { profileEnvironment, SANDBOX_SKIP_REASON } from "../support/execution-profiles.js";

// What the sandbox profile promises about commands: they see the workspace and not the host
// user's files, reach no address (127.0.0.1 included) unless the profile allows the network, and
// leave no process behind once killed or interrupted.

let dirs: TempDirs;
let env: Environment | undefined;
let server: Server;
let port: number;

beforeAll(async () => {
  server = createServer((_req, res) => res.end("reached"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(async () => {
  dirs = await tempDirs();
  mkdirSync(dirs.workspaceDir, { recursive: true });
  mkdirSync(join(dirs.root, "home"), { recursive: true });
});
afterEach(async () => {
  await env?.dispose();
  env = undefined;
  await dirs.cleanup();
});

let processes: ProcessManager | undefined;

function sandboxed(profile: ExecutionProfile = builtinExecutionProfiles().sandbox!): Environment {
  const options = profileEnvironment("sandbox", dirs, profile);
  processes = options.processes;
  env = makeEnvironment(dirs, [execTool({ timeoutMs: 60_000 })], options);
  return env;
}

async function run(environment: Environment, cmd: string, extra: Record<string, unknown> = {}) {
  const call = await runCall(environment, "exec_command", {
    description: "test",
    cmd,
    yield_time_ms: 20_000,
    ...extra,
  });
  return call.complete.output;
}

/** Pids of live processes whose command line contains `marker` (zombies excluded). */
function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      const state = /\) (\S)/.exec(readFileSync(`/proc/${entry}/stat`, "utf8"))?.[1];
      if (cmdline.includes(marker) && state !== "Z") found.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return found;
}

async function untilNone(marker: string, ms = 10_000): Promise<number[]> {
  const deadline = Date.now() + ms;
  let left = processesWith(marker);
  while (left.length > 0 && Date.now() < deadline) {
    await sleep(50);
    left = processesWith(marker);
  }
  return left;
}

describe.skipIf(SANDBOX_SKIP_REASON !== undefined)("a command in the sandbox profile", () => {
  it("reads and writes the workspace but cannot read a file of the host user's home", async () => {
    const secret = join(dirs.root, "home", "secret.txt");
    writeFileSync(secret, "host secret\n");
    writeFileSync(join(dirs.workspaceDir, "in.txt"), "workspace file\n");
    const output = await run(
      sandboxed(),
      `cat in.txt; echo made > out.txt; cat ${secret} || echo "no secret"`,
    );
    expect(output).toContain("workspace file");
    expect(output).toContain("no secret");
    expect(output).not.toContain("host secret");
    expect(readFileSync(join(dirs.workspaceDir, "out.txt"), "utf8")).toBe("made\n");
  });

  it("cannot change the rest of the file system, and gets a private /tmp", async () => {
    const output = await run(
      sandboxed(),
      "touch /usr/penguin-test 2>&1; echo private > /tmp/p.txt && ls /tmp",
    );
    expect(output).toMatch(/Read-only file system/);
    expect(output).toContain("p.txt");
    expect(output).not.toContain("penguin-env-");
  });

  it("cannot reach 127.0.0.1 when the profile has no network", async () => {
    const output = await run(
      sandboxed(),
      `(exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null && echo connected || echo refused`,
    );
    expect(output).toContain("refused");
    expect(output).not.toContain("connected");
  });

  it("reaches 127.0.0.1 when the profile allows the network", async () => {
    const profile = ExecutionProfileSchema.parse({ kind: "sandbox", network: true });
    const cmd = `exec 3<>/dev/tcp/127.0.0.1/${port}; printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3; cat <&3`;
    expect(await run(sandboxed(profile), cmd)).toContain("reached");
  });

  it("passes only a safe environment: no inherited secret, HOME a private writable /tmp", async () => {
    mkdirSync(dirs.scratchpadDir, { recursive: true });
    const manager = new ProcessManager({
      baseEnv: { ...process.env, PENGUIN_TEST_SERVER_SECRET: "server-token-123" },
      sandbox: {
        profile: builtinExecutionProfiles().sandbox!,
        workspaceDir: dirs.workspaceDir,
        dataRoot: join(dirs.root, "data"),
      },
      // The captured login environment is sourced inside the sandbox (its file bound read-only).
      loginEnvironment: { mode: "once", cwd: dirs.workspaceDir, dir: dirs.scratchpadDir },
    });
    await manager.loginEnvironmentSettled();
    processes = manager;
    env = makeEnvironment(dirs, [execTool({ timeoutMs: 60_000 })], {
      ...profileEnvironment("sandbox", dirs),
      processes: manager,
    });
    const output = await run(
      env,
      'echo "secret=[$PENGUIN_TEST_SERVER_SECRET]"; echo "home=$HOME"; echo x > ~/f && cat ~/f',
    );
    expect(output).toContain("secret=[]");
    expect(output).not.toContain("server-token-123");
    expect(output).toContain("home=/tmp\nx");
  });

  it("applies the profile's limits", async () => {
    const profile = ExecutionProfileSchema.parse({
      kind: "sandbox",
      limits: { file_size_mb: 1, cpu_seconds: 30 },
    });
    const output = await run(sandboxed(profile), "ulimit -f; ulimit -t");
    expect(output.split("\n").slice(0, 2)).toEqual(["1024", "30"]);
  });

  it("hides the profile's hidden paths, even inside the workspace", async () => {
    mkdirSync(join(dirs.workspaceDir, "private"));
    writeFileSync(join(dirs.workspaceDir, "private", "key"), "k");
    const profile = ExecutionProfileSchema.parse({
      kind: "sandbox",
      hidden_paths: [join(dirs.workspaceDir, "private")],
    });
    expect(await run(sandboxed(profile), "ls -A private | wc -l")).toMatch(/^0\n/);
  });

  it("leaves no process behind when killed, a setsid daemon included", async () => {
    const marker = String(86_400 + Math.floor(Math.random() * 100_000));
    const environment = sandboxed();
    const output = await run(environment, `sleep ${marker} & setsid sleep ${marker}.5 & echo started; wait`, {
      yield_time_ms: 500,
    });
    expect(output).toContain("started");
    expect(processesWith(marker).length).toBeGreaterThanOrEqual(2);
    const id = /cmd_\d+/.exec(output)?.[0];
    expect(id, output).toBeDefined();
    expect(await processes?.kill(id!)).toBe(true);
    expect(await untilNone(marker)).toEqual([]);
  });

  it("leaves no process behind when the user interrupts the call", async () => {
    const marker = String(186_400 + Math.floor(Math.random() * 100_000));
    const environment = sandboxed();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 1_000);
    const call = await runCall(
      environment,
      "exec_command",
      { description: "test", cmd: `setsid sleep ${marker} & sleep ${marker}.5`, yield_time_ms: 30_000 },
      "call_interrupted",
      { signal: controller.signal },
    );
    expect(call.complete.stop_reason).toBe("aborted");
    expect(await untilNone(marker)).toEqual([]);
  });

  it("leaves no process behind when the session ends", async () => {
    const marker = String(286_400 + Math.floor(Math.random() * 100_000));
    const environment = sandboxed();
    await run(environment, `setsid sleep ${marker} & echo started; sleep ${marker}.5`, {
      yield_time_ms: 500,
    });
    expect(processesWith(marker).length).toBeGreaterThanOrEqual(2);
    await environment.dispose();
    env = undefined;
    expect(await untilNone(marker)).toEqual([]);
  });

  it("ends a background process with the command that started it (the sandbox ends with its shell)", async () => {
    const marker = String(386_400 + Math.floor(Math.random() * 100_000));
    const output = await run(sandboxed(), `sleep ${marker} & echo started`);
    expect(output).toContain("started");
    expect(await untilNone(marker)).toEqual([]);
  });

  it("starts in a workdir reached through the workspace, and says so when bwrap cannot start it elsewhere", async () => {
    mkdirSync(join(dirs.workspaceDir, "sub"));
    symlinkSync(join(dirs.root, "home"), join(dirs.workspaceDir, "home-link"));
    const environment = sandboxed();
    expect(await run(environment, "pwd", { workdir: "sub" })).toContain(join(dirs.workspaceDir, "sub"));
    expect(await run(environment, "pwd", { workdir: "home-link" })).toMatch(/bwrap: Can't chdir/);
  });
});
