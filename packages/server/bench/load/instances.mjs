// Server instances under test, each a child process (so the clients and the fake model do not
// share its event loop), with a fresh empty HOME: the login shell a session captures its
// environment from must not run the machine's profile.
import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { onCleanup } from "./cleanup.mjs";

const SERVE_SCRIPT = fileURLToPath(new URL("./serve.mjs", import.meta.url));
/** Where serve.mjs reads its options. */
const SERVE_OPTIONS_VARIABLE = "PENGUIN_BENCH_SERVE_OPTIONS";
/** A stopping server that has not exited by then is killed. */
const STOP_GRACE_MS = 10_000;

/**
 * Starts one instance on `dataRoot` and `database` (absent: the data root's SQLite file) and
 * resolves once it listens: `{ url, instance, password, stop }`. Its stop is registered for
 * cleanup too.
 */
export async function startInstance({ dataRoot, workspaceRoot, database, traces, home, maxStreamsPerUser }) {
  mkdirSync(home, { recursive: true });
  const env = { ...process.env, HOME: home };
  delete env.PENGUIN_HOME;
  // In the environment, not the arguments: the database URL holds a password, and any user of
  // the machine can list a process's arguments.
  env[SERVE_OPTIONS_VARIABLE] = JSON.stringify({
    dataRoot,
    workspaceRoot,
    database,
    traces,
    maxStreamsPerUser,
  });
  const child = spawn(process.execPath, [SERVE_SCRIPT], {
    stdio: ["pipe", "pipe", "inherit"],
    env,
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const stop = onCleanup(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
  });
  const info = await new Promise((resolve, reject) => {
    let buffered = "";
    child.stdout.on("data", (chunk) => {
      buffered += chunk;
      if (buffered.includes("\n")) resolve(JSON.parse(buffered.split("\n")[0]));
    });
    child.once("exit", (code, signal) =>
      reject(new Error(`a server instance exited before it listened (${signal ?? code})`)),
    );
  });
  return { ...info, stop };
}
