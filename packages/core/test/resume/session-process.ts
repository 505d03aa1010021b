import { type ChildProcess, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { MODEL } from "../sdk/fixtures.js";

// A session run in its own Node process (child-session.mjs), so that a test can kill it for real.

const CHILD = join(dirname(fileURLToPath(import.meta.url)), "child-session.mjs");

/** Runs child-session.mjs in its own Node process and lets the test wait for its messages. */
export function spawnSession(
  env: { root: string; dataRoot: string; workspaceDir: string },
  prompt: string,
  cleanups: (() => void)[],
  config?: Record<string, unknown>,
) {
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
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  const lines = createInterface({ input: child.stdout! });
  const seen: Record<string, unknown>[] = [];
  const waiters: {
    test: (line: Record<string, unknown>) => boolean;
    resolve: (line: Record<string, unknown>) => void;
  }[] = [];
  lines.on("line", (text) => {
    const line = JSON.parse(text) as Record<string, unknown>;
    seen.push(line);
    for (const waiter of waiters.splice(0)) {
      if (waiter.test(line)) waiter.resolve(line);
      else waiters.push(waiter);
    }
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    /** Resolves with the first printed line that passes `test`; fails if the process ends first. */
    waitFor(test: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
      const already = seen.find(test);
      if (already) return Promise.resolve(already);
      return new Promise((resolve, reject) => {
        waiters.push({ test, resolve });
        void exited.then(() => reject(new Error(`the session process ended first; stderr:\n${stderr}`)));
      });
    },
    async kill(): Promise<void> {
      child.kill("SIGKILL");
      await exited;
      expect(child.signalCode).toBe("SIGKILL");
    },
  };
}
