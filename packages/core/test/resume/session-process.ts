import { type ChildProcess, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { MODEL } from "../sdk/fixtures.js";

// A session run in its own Node process (child-session.mjs), so that a test can kill it for real
// (SIGKILL) at a point it waits for in the messages the process prints.

const CHILD = join(dirname(fileURLToPath(import.meta.url)), "child-session.mjs");

export type Line = Record<string, unknown>;

export interface SessionProcess {
  /** Resolves with the first printed line that passes `test`; fails if the process ends first. */
  waitFor(test: (line: Line) => boolean): Promise<Line>;
  /** Every line printed so far. */
  readonly lines: readonly Line[];
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
  env: { root: string; dataRoot: string; workspaceDir: string },
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
    },
    cleanup() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    },
  };
}

/** `spawnSessionProcess`, killed (if it still runs) by the test's `cleanups`. */
export function spawnSession(
  env: { root: string; dataRoot: string; workspaceDir: string },
  prompt: string,
  cleanups: (() => void)[],
  config?: Record<string, unknown>,
): SessionProcess {
  const run = spawnSessionProcess(env, prompt, config);
  cleanups.push(() => run.cleanup());
  return run;
}
