import { type ChildProcess, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

// A session task in its own Node process (session-process.mjs), whose printed messages a test
// waits for before it kills the process with SIGKILL.

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), "session-process.mjs");

export type Line = Record<string, unknown>;

export interface SessionProcess {
  /** Resolves with the first printed line that passes `test`; fails if the process ends first. */
  waitFor(test: (line: Line) => boolean): Promise<Line>;
  /** Every line printed so far. */
  readonly lines: readonly Line[];
  /** SIGKILL, and the process is gone. */
  kill(): Promise<void>;
  /** Kills it if it still runs (for after each test). */
  cleanup(): void;
}

export function spawnSessionProcess(
  where: { dataRoot: string; workspaceDir: string },
  model: string,
  prompt: string,
): SessionProcess {
  const child: ChildProcess = spawn(
    process.execPath,
    [SCRIPT, where.dataRoot, where.workspaceDir, model, prompt],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
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

export const payloadOf = (line: Line) => (line.payload ?? {}) as Record<string, unknown>;

/** Waits until `check` holds, polling. */
export async function until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
