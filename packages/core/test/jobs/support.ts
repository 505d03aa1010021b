import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Environment } from "../../src/environment/environment.js";
import { ProcessManager, type ProcessManagerOptions } from "../../src/processes/process-manager.js";
import {
  extendedEnvironment,
  runCall,
  type TempDirs,
  type ToolsetOptions,
  workspace,
} from "../extended/support.js";

// The job tools through the real Environment with the extended preset's definitions: real
// processes in their own process groups, in a temp workspace.

export { runCall, type TempDirs, workspace };

export interface JobsEnvironment {
  env: Environment;
  processes: ProcessManager;
  /** Runs one call and returns its complete output (text, stop reason). */
  call(
    name: string,
    args: Record<string, unknown>,
  ): Promise<{ output: string; stop: string | undefined; streamed: string }>;
}

let calls = 0;

export function jobsEnvironment(
  dirs: TempDirs,
  options: ToolsetOptions & { processes?: ProcessManagerOptions } = {},
): JobsEnvironment {
  // Jobs run as in a session: recorded in the scratchpad's registry, their output spooled there.
  const processes = new ProcessManager({
    registryDir: join(dirs.scratchpadDir, "processes"),
    ...options.processes,
  });
  const env = extendedEnvironment(dirs, { ...options, environment: { ...options.environment, processes } });
  return {
    env,
    processes,
    async call(name, args) {
      calls += 1;
      const record = await runCall(env, name, args, `call_${calls}`);
      return { output: record.complete.output, stop: record.complete.stop_reason, streamed: record.streamed };
    },
  };
}

/** Polls `check` every 20 ms until it holds, or fails the test after `ms`. */
export async function waitUntil(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Whether a process with this pid is alive. A zombie does not count: an orphan reparented to an
 * init that does not reap (common in containers) stays one forever.
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return process.platform !== "linux";
  }
}
