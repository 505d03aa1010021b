import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { errorMessage } from "@penguin/protocol";
import type { LoginEnvironmentMode } from "@penguin/state";
import { processGroupSpawnOptions } from "./platform.js";
import { afterNextRequestSent } from "./request-sent.js";

// "Capture the login environment once per session (exported variables and shell functions, from
// one `bash -lc` run in the workspace when the session starts …), store it as a private file in
// the scratchpad, and run each command with `bash -c` sourcing it (through `BASH_ENV`)." A login
// profile that costs hundreds of milliseconds (pyenv, nvm, conda) or takes a lock is then paid
// once, not on every command. The command tools wait for a capture under way (`untilCaptured`);
// a command started without waiting before the capture is ready, and every command after a
// failed one, runs as before (`bash -lc`): the semantics are those of a login shell either way.

/** How long the one capture may take; past it commands stay login shells (one warning says so). */
export const LOGIN_CAPTURE_TIMEOUT_MS = 15_000;
/** The private file commands source, in the session's scratchpad. */
export const LOGIN_ENVIRONMENT_FILE = ".login-environment.sh";

/** Variables the capture never carries: the shell's own, per process or per directory. */
const NEVER_CAPTURED = new Set(["PWD", "OLDPWD", "SHLVL", "_", "BASH_ENV", "ENV"]);
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Files whose change a `refresh` capture looks for (the ones a login bash reads), for a home folder. */
function profileFiles(home: string | undefined): string[] {
  const own = home
    ? [".bash_profile", ".bash_login", ".profile", ".bashrc"].map((name) => join(home, name))
    : [];
  return ["/etc/profile", "/etc/bash.bashrc", ...own];
}

/** How a command is started: the shell's flags before the command, and extra environment. */
export interface LaunchPlan {
  flags: readonly string[];
  env: Readonly<Record<string, string>>;
}

/**
 * Bash run with `-c` and a socket on stdin (what Node's pipes are) at shell level 1 takes itself
 * for a command of a remote shell daemon: it reads ~/.bashrc and skips BASH_ENV. Starting it at
 * level 2 keeps it an ordinary non-interactive shell.
 */
const NOT_A_REMOTE_SHELL = { SHLVL: "1" };
const LOGIN_SHELL: LaunchPlan = { flags: ["-lc"], env: {} };
const PLAIN_SHELL: LaunchPlan = { flags: ["-c"], env: NOT_A_REMOTE_SHELL };

export interface LoginEnvironmentOptions {
  mode: LoginEnvironmentMode;
  shell: string;
  /** The folder the capture runs in (the workspace). */
  cwd: string;
  /** Where the private file goes (the session's scratchpad). */
  dir: string;
  /** The environment commands start with (inherited, non-interactive, extras). */
  env: Readonly<Record<string, string>>;
  /** Names the capture must not override (the non-interactive settings and the embedder's extras). */
  keep: ReadonlySet<string>;
  timeoutMs?: number;
  /**
   * When the capture starts: `now`, or `after-request`: once the next HTTP request of the process
   * (a session's first model request) has been sent, so that the spawn and the shell do not
   * delay that request; the model's answer takes longer than a capture. A command that comes
   * first starts it. Default `now`.
   */
  start?: "now" | "after-request";
}

/** A single-quoted shell word: safe for any value. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * The file commands source: the profile's exported variables (except the shell's own and those
 * Penguin sets on purpose), `unset` for variables the profile removed, its functions, and last an
 * `unset BASH_ENV` so shells the command starts do not source it again.
 */
export function environmentFileText(
  captured: Readonly<Record<string, string>>,
  functions: string,
  start: Readonly<Record<string, string>>,
  keep: ReadonlySet<string>,
): string {
  const lines = ["# Penguin: the login environment of this session (exec.login_environment)."];
  for (const [name, value] of Object.entries(captured)) {
    if (!VARIABLE_NAME.test(name) || NEVER_CAPTURED.has(name) || keep.has(name)) continue;
    if (start[name] === value) continue;
    lines.push(`export ${name}=${shellQuote(value)}`);
  }
  for (const name of Object.keys(start)) {
    if (!VARIABLE_NAME.test(name) || NEVER_CAPTURED.has(name) || keep.has(name)) continue;
    if (!(name in captured)) lines.push(`unset ${name}`);
  }
  if (functions.trim() !== "") lines.push(functions.trimEnd());
  lines.push("unset BASH_ENV");
  return `${lines.join("\n")}\n`;
}

/** `env -0` output as a map (a value may hold newlines; NUL ends each entry). */
export function parseNulEnvironment(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const entry of text.split("\0")) {
    const eq = entry.indexOf("=");
    if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return env;
}

function profileStamp(home: string | undefined): string {
  return profileFiles(home)
    .map((file) => {
      try {
        return String(statSync(file).mtimeMs);
      } catch {
        return "-";
      }
    })
    .join(",");
}

/**
 * The login environment of one session. `plan()` is how the next command starts: a login shell
 * until the capture is ready (or when it failed, or in `always` mode), then `bash -c` with
 * `BASH_ENV` naming the captured file.
 */
export class LoginEnvironment {
  private ready: LaunchPlan | undefined;
  private capturing: Promise<void> | undefined;
  private stamp = "";
  private readonly warnings: string[] = [];
  /** Cancels the wait for the first request while the capture has not started yet. */
  private cancelDeferredStart: (() => void) | undefined;
  /** Ends a capture under way (its shell's whole group), for disposal. */
  private readonly stopCapture = new AbortController();

  constructor(private readonly options: LoginEnvironmentOptions) {
    if (options.mode !== "once" && options.mode !== "refresh") return;
    if (options.start === "after-request") {
      this.cancelDeferredStart = afterNextRequestSent(() => this.startCapture());
    } else {
      this.capture();
    }
  }

  /** Starts the first capture if it has not started yet (deferred until the first request). */
  private startCapture(): void {
    if (this.cancelDeferredStart === undefined) return;
    this.cancelDeferredStart();
    this.cancelDeferredStart = undefined;
    this.capture();
  }

  /**
   * The session ends: stops waiting for the first request, ends a capture under way and resolves
   * once it is gone, so that no shell of a disposed session still writes into its scratchpad
   * (which its owner may be removing).
   */
  async dispose(): Promise<void> {
    this.cancelDeferredStart?.();
    this.cancelDeferredStart = undefined;
    this.stopCapture.abort();
    await this.capturing;
  }

  /** Warnings not yet reported (a failed capture), taken once. */
  takeWarnings(): string[] {
    return this.warnings.splice(0);
  }

  /** Resolves when a capture in progress has ended (tests, and a caller that wants to wait). */
  async settled(): Promise<void> {
    await this.capturing;
  }

  plan(): LaunchPlan {
    const { mode } = this.options;
    if (mode === "none") return PLAIN_SHELL;
    if (mode === "always") return LOGIN_SHELL;
    this.startDueCapture();
    return this.ready ?? LOGIN_SHELL;
  }

  /**
   * Resolves once no capture is under way (at once in `always` and `none` modes), starting one
   * that is due first, or when `signal` aborts. A command started while the capture runs would
   * source the same profile beside it, as slowly, and contend with it for the profile's own locks
   * (a profile running `pyenv rehash` makes a second shell wait for its lock); waiting costs the
   * command at most the rest of the capture, which LOGIN_CAPTURE_TIMEOUT_MS bounds.
   */
  async untilCaptured(signal?: AbortSignal): Promise<void> {
    const { mode } = this.options;
    if (mode !== "once" && mode !== "refresh") return;
    this.startDueCapture();
    const capturing = this.capturing;
    if (capturing === undefined || signal?.aborted) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        signal?.removeEventListener("abort", done);
        resolve();
      };
      signal?.addEventListener("abort", done, { once: true });
      void capturing.then(done);
    });
  }

  /** Starts a capture that is due: the first, before any request was sent; or a refresh after a profile changed. */
  private startDueCapture(): void {
    // A command before any request was sent: the capture starts now.
    this.startCapture();
    if (
      this.options.mode === "refresh" &&
      this.ready &&
      this.capturing === undefined &&
      profileStamp(this.options.env.HOME) !== this.stamp
    ) {
      // A profile changed: capture it again; `plan` gives login shells until the new capture is ready.
      this.ready = undefined;
      this.capture();
    }
  }

  private capture(): void {
    this.stamp = profileStamp(this.options.env.HOME);
    this.capturing = this.run()
      .then((plan) => {
        this.ready = plan;
      })
      .catch((error: unknown) => {
        if (this.stopCapture.signal.aborted) return;
        this.warnings.push(
          `the login environment could not be captured (${errorMessage(error)}); every command runs as a login shell (bash -lc), which sources the profile each time. Set exec.login_environment to always or none to choose.`,
        );
      })
      .finally(() => {
        this.capturing = undefined;
      });
  }

  private async run(): Promise<LaunchPlan> {
    const { dir, env, shell, cwd } = this.options;
    if (this.stopCapture.signal.aborted) throw new Error("the session ended before the capture started");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const envFile = join(dir, ".login-capture.env");
    const functionsFile = join(dir, ".login-capture.functions");
    // Written by the shell itself (umask 077: private), read here, then removed.
    const script = `umask 077; env -0 > ${shellQuote(envFile)} && declare -f > ${shellQuote(functionsFile)}`;
    try {
      await runCapture(
        shell,
        script,
        cwd,
        env,
        this.options.timeoutMs ?? LOGIN_CAPTURE_TIMEOUT_MS,
        this.stopCapture.signal,
      );
      const captured = parseNulEnvironment(readFileSync(envFile, "utf8"));
      const functions = readFileSync(functionsFile, "utf8");
      const file = join(dir, LOGIN_ENVIRONMENT_FILE);
      writeFileSync(file, environmentFileText(captured, functions, env, this.options.keep), { mode: 0o600 });
      return { flags: ["-c"], env: { ...NOT_A_REMOTE_SHELL, BASH_ENV: file } };
    } finally {
      rmSync(envFile, { force: true });
      rmSync(functionsFile, { force: true });
    }
  }
}

/**
 * Runs `shell -lc script` in its own process group; rejects on a non-zero exit, the timeout or
 * `stop` (which end the whole group: a profile may have started helpers of its own; `stop`
 * resolves the promise only once the shell has exited).
 */
function runCapture(
  shell: string,
  script: string,
  cwd: string,
  env: Readonly<Record<string, string>>,
  timeoutMs: number,
  stop: AbortSignal,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(shell, ["-lc", script], {
      cwd,
      env,
      stdio: ["ignore", "ignore", "pipe"],
      ...processGroupSpawnOptions(process.platform),
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < 2_000) stderr += chunk.toString("utf8");
    });
    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(() => {
      killGroup();
      reject(new Error(`the login shell took longer than ${timeoutMs} ms`));
    }, timeoutMs);
    stop.addEventListener("abort", killGroup, { once: true });
    child.on("error", (error) => {
      clearTimeout(timer);
      stop.removeEventListener("abort", killGroup);
      reject(error);
    });
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      stop.removeEventListener("abort", killGroup);
      if (code === 0) resolve();
      else
        reject(
          new Error(
            `the login shell ended with ${signal ?? `exit code ${code}`}${stderr ? `: ${stderr.trim()}` : ""}`,
          ),
        );
    });
  });
}
