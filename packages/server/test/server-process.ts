import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";

/** A test server in a process of its own (a script of this folder), for kills a test server in this process cannot survive. */
export interface ServerProcess<T> {
  /** The JSON line the script printed once it listened. */
  info: T;
  child: ChildProcess;
  /** The signal that ended it (null: it exited by itself). */
  exited: Promise<NodeJS.Signals | null>;
  stderr(): string;
  /** SIGKILL unless it has ended already; settles once it has. */
  kill(): Promise<void>;
}

/**
 * Starts `node test/<script> ...args` and waits for the one JSON line it prints on stdout when it
 * is ready; rejects with its stderr when it exits first.
 */
export async function spawnServerProcess<T>(
  script: string,
  args: readonly string[],
): Promise<ServerProcess<T>> {
  const child = spawn(process.execPath, [join(import.meta.dirname, script), ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.once("exit", (_code, signal) => resolve(signal)),
  );
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += String(chunk);
  });
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
  };
  try {
    const info = await new Promise<T>((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (chunk) => {
        out += String(chunk);
        const line = out.split("\n")[0];
        if (out.includes("\n") && line) resolve(JSON.parse(line) as T);
      });
      child.once("exit", () => reject(new Error(`${script} exited before it started: ${stderr}`)));
    });
    return { info, child, exited, stderr: () => stderr, kill };
  } catch (error) {
    await kill();
    throw error;
  }
}
