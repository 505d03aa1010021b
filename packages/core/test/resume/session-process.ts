import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { scratchpadDir } from "@penguin/state";
import { readProcessRecord } from "../../src/processes/registry.js";
import { alive, waitUntil } from "../jobs/support.js";
import { MODEL } from "../sdk/fixtures.js";

// A session run in its own Node process (child-session.mjs), so that a test can kill it for real
// (SIGKILL) at a point it waits for in the messages the process prints.

const CHILD = join(dirname(fileURLToPath(import.meta.url)), "child-session.mjs");

export type Line = Record<string, unknown>;

/** Where a session process keeps its files (the fixtures' setup). */
type SessionEnv = { root: string; dataRoot: string; workspaceDir: string };

export interface SessionProcess {
  /** Resolves with the first printed line that passes `test`; fails if the process ends first. */
  waitFor(test: (line: Line) => boolean): Promise<Line>;
  /** Every line printed so far. */
  readonly lines: readonly Line[];
  /** The process's pid. */
  readonly pid: number | undefined;
  /** SIGKILL, and the process is gone (fails if it ended otherwise). */
  kill(): Promise<void>;
  /** Kills it if it still runs (for after each test). */
  cleanup(): void;
}

/**
 * Runs child-session.mjs in its own Node process: one task of a new session in `env`, with the
 * agent configured by `config` (in code, e.g. the extended preset).
 */
export function spawnSessionProcess(
  env: SessionEnv,
  prompt: string,
  config?: Record<string, unknown>,
): SessionProcess {
  const child: ChildProcess = spawn(
    process.execPath,
    [CHILD, env.dataRoot, env.workspaceDir, MODEL, prompt, ...(config ? [JSON.stringify(config)] : [])],
    // The test's temp folder as HOME: no dotfiles of the machine reach the session's shells.
    { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, HOME: env.root } },
  );
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += String(chunk);
  });
  const seen: Line[] = [];
  const waiters: { test: (line: Line) => boolean; resolve: (line: Line) => void }[] = [];
  createInterface({ input: child.stdout! }).on("line", (text) => {
    const line = JSON.parse(text) as Line;
    seen.push(line);
    for (const waiter of waiters.splice(0)) {
      if (waiter.test(line)) waiter.resolve(line);
      else waiters.push(waiter);
    }
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    lines: seen,
    pid: child.pid,
    waitFor(test) {
      const already = seen.find(test);
      if (already) return Promise.resolve(already);
      return new Promise((resolve, reject) => {
        waiters.push({ test, resolve });
        void exited.then(() => reject(new Error(`the session process ended first; stderr:\n${stderr}`)));
      });
    },
    async kill() {
      child.kill("SIGKILL");
      await exited;
      if (child.signalCode !== "SIGKILL") throw new Error(`the process ended with ${child.signalCode}`);
      await endOrphanedCaptures(env.root);
    },
    cleanup() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    },
  };
}

/** `spawnSessionProcess`, killed (if it still runs) by the test's `cleanups`. */
export function spawnSession(
  env: SessionEnv,
  prompt: string,
  cleanups: (() => void)[],
  config?: Record<string, unknown>,
): SessionProcess {
  const run = spawnSessionProcess(env, prompt, config);
  cleanups.push(() => run.cleanup());
  return run;
}

/**
 * Runs a session whose first model turn starts a run_command job (`cmd_1`) that writes its own
 * pid to `pidFile`, and kills the session's process (SIGKILL) while the call waits on the job:
 * once the job has started and the registry has its pid. The job's group is killed by the test's
 * `cleanups` should the test stop half-way.
 */
export async function crashDuringJob(
  env: SessionEnv,
  pidFile: string,
  cleanups: (() => void)[],
  config: Record<string, unknown>,
): Promise<{ sessionId: string; jobPid: number }> {
  cleanups.push(() => {
    if (!existsSync(pidFile)) return;
    try {
      process.kill(-readPid(pidFile), "SIGKILL");
    } catch {
      // Already gone.
    }
  });
  const run = spawnSession(env, "Start the server.", cleanups, config);
  const { session_id: sessionId } = (await run.waitFor((line) => "session_id" in line)) as {
    session_id: string;
  };
  await waitUntil(() => existsSync(pidFile) && statSync(pidFile).size > 0, "the job to write its pid");
  // The registry has its pid (the record is written as soon as the process exists, and may lag
  // behind the job by a moment on a busy machine).
  const registry = join(scratchpadDir(env.dataRoot, sessionId), "processes");
  await waitUntil(
    () => readProcessRecord(registry, "cmd_1")?.pid !== undefined,
    "the job's pid to be recorded",
  );
  await run.kill();
  return { sessionId, jobPid: readPid(pidFile) };
}

/**
 * A killed session can leave its login-environment capture running (a shell in a group of its
 * own, as commands are), still to write into the scratchpad: ended here, so that it neither
 * races the test's removal of its temp folder nor outlives the test. Found by its command line,
 * which names the capture file under `root`.
 */
async function endOrphanedCaptures(root: string): Promise<void> {
  const captures = readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
        return cmdline.includes(root) && cmdline.includes(".login-capture");
      } catch {
        return false;
      }
    })
    .map(Number);
  for (const pid of captures) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  await waitUntil(() => !captures.some(alive), "the killed session's capture shell to end");
}

/** The pid a job wrote to its file. */
const readPid = (file: string): number => Number(readFileSync(file, "utf8").trim());
