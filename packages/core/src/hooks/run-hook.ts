import { spawn } from "node:child_process";
import { errorMessage } from "@penguin/protocol";

// One hook process: `bash -c <command>` in its own process group, the call as JSON on stdin,
// stdout and stderr kept up to a cap, killed (the whole group) when its time is up or the user
// interrupts. Never throws: a hook that cannot start is reported as an "error" outcome.

/** How long after SIGTERM a hook's process group gets SIGKILL. */
export const HOOK_KILL_GRACE_MS = 1_000;

export interface HookProcessOptions {
  command: string;
  cwd: string;
  /** Written to stdin, which is then closed. */
  input: string;
  timeoutMs: number;
  /** stdout and stderr together keep at most this many characters; the rest is counted. */
  maxOutputChars: number;
  env?: Record<string, string>;
  signal?: AbortSignal;
}

export interface HookProcessResult {
  outcome: "exited" | "timeout" | "error";
  exitCode?: number;
  /** The signal that ended it, when one did. */
  signal?: string;
  stdout: string;
  stderr: string;
  /** Characters dropped beyond `maxOutputChars`. */
  droppedChars: number;
  /** Why it could not run, for an "error" outcome. */
  error?: string;
  interrupted: boolean;
  durationMs: number;
}

/** Keeps the first `cap` characters of two streams together and counts the rest. */
class CappedStreams {
  stdout = "";
  stderr = "";
  dropped = 0;
  constructor(private readonly cap: number) {}

  add(stream: "stdout" | "stderr", chunk: string): void {
    const room = this.cap - this.stdout.length - this.stderr.length;
    const kept = room > 0 ? chunk.slice(0, room) : "";
    this.dropped += chunk.length - kept.length;
    this[stream] += kept;
  }
}

export function runHookProcess(options: HookProcessOptions): Promise<HookProcessResult> {
  const started = Date.now();
  const streams = new CappedStreams(options.maxOutputChars);
  return new Promise((resolve) => {
    let settled = false;
    let timedOut = false;
    let interrupted = false;
    // Declared before anything can call `finish`: a spawn that throws synchronously (a NUL byte
    // in the command or the environment) reaches `finish` before the timer and listener exist.
    let killTimer: NodeJS.Timeout | undefined;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const finish = (
      result: Omit<HookProcessResult, "stdout" | "stderr" | "droppedChars" | "durationMs" | "interrupted">,
    ) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(killTimer);
      if (onAbort) options.signal?.removeEventListener("abort", onAbort);
      resolve({
        ...result,
        stdout: streams.stdout,
        stderr: streams.stderr,
        droppedChars: streams.dropped,
        interrupted,
        durationMs: Date.now() - started,
      });
    };

    let child: ReturnType<typeof spawn>;
    try {
      child = spawn("bash", ["-c", options.command], {
        cwd: options.cwd,
        env: { ...process.env, ...options.env },
        stdio: ["pipe", "pipe", "pipe"],
        detached: true,
      });
    } catch (error) {
      finish({ outcome: "error", error: errorMessage(error) });
      return;
    }

    const killGroup = (signal: NodeJS.Signals) => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, signal);
      } catch {
        // Already gone.
      }
    };
    const stop = () => {
      killGroup("SIGTERM");
      killTimer = setTimeout(() => killGroup("SIGKILL"), HOOK_KILL_GRACE_MS);
    };
    timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    onAbort = () => {
      interrupted = true;
      stop();
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener("abort", onAbort, { once: true });

    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => streams.add("stdout", chunk));
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => streams.add("stderr", chunk));
    // A hook that does not read its stdin closes the pipe early: that is not its failure.
    child.stdin?.on("error", () => {});
    child.stdin?.end(options.input);

    child.on("error", (error) => {
      finish({ outcome: "error", error: error.message });
    });
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      // A hook is done once its own shell exits: children left behind holding the pipes go too.
      killGroup("SIGKILL");
    });
    child.on("close", (code, signal) => {
      const ended = exit ?? { code, signal };
      if (interrupted) {
        finish({ outcome: "error", error: "interrupted by the user" });
      } else if (timedOut) {
        finish({ outcome: "timeout", ...(ended.signal ? { signal: ended.signal } : {}) });
      } else if (ended.code === null) {
        finish({ outcome: "error", error: `killed by ${ended.signal ?? "a signal"}` });
      } else {
        finish({ outcome: "exited", exitCode: ended.code });
      }
    });
  });
}
