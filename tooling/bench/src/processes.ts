import { spawn } from "node:child_process";

export interface RunProcessOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /**
   * What happens to the child's stdout: `ignore` (the child writes to /dev/null itself) or
   * `discard` (a pipe that this process reads and throws away, as any harness must at least do).
   */
  stdout?: "ignore" | "discard";
  /**
   * Start the child as exec_command does: its own process group (`detached`, setsid on POSIX)
   * with stdin as an open pipe too.
   */
  asCommandSession?: boolean;
  /** Called with the child's pid right after it was spawned (to sample its memory, say). */
  onSpawn?: (pid: number) => void;
}

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The last bytes of stderr, for error messages. */
  stderr: string;
}

const STDERR_KEPT_CHARS = 2_000;

/** Runs a program to its end (exit and closed pipes). Never rejects for a non-zero exit. */
export function runProcess(
  file: string,
  args: readonly string[],
  options: RunProcessOptions = {},
): Promise<ProcessExit> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      env: options.env,
      cwd: options.cwd,
      stdio: [
        options.asCommandSession ? "pipe" : "ignore",
        options.stdout === "discard" ? "pipe" : "ignore",
        "pipe",
      ],
      detached: options.asCommandSession ?? false,
    });
    if (child.pid !== undefined) options.onSpawn?.(child.pid);
    let stderr = "";
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (text: string) => {
      stderr = (stderr + text).slice(-STDERR_KEPT_CHARS);
    });
    child.stdout?.resume();
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stderr }));
  });
}

/** Like `runProcess`, but a non-zero exit or a signal is an error that names the command. */
export async function runProcessOk(
  file: string,
  args: readonly string[],
  options: RunProcessOptions = {},
): Promise<void> {
  const exit = await runProcess(file, args, options);
  if (exit.code !== 0) {
    const how = exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
    throw new Error(`${file} ${args.join(" ")} failed with ${how}: ${exit.stderr.trim()}`);
  }
}
