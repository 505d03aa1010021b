import { accessSync, constants } from "node:fs";
import type { LoginEnvironmentMode } from "@penguin/state";
import { MAX_COMMAND_SESSIONS } from "@penguin/state";
import { LoginEnvironment } from "./login-environment.js";
import { NON_INTERACTIVE_ENV, nonInteractiveEnv } from "./non-interactive-env.js";
import { findOnPath, type Platform } from "./platform.js";
import { ProcessJournal } from "./process-journal.js";
import { BWRAP_PROGRAM, bwrapArguments, type SandboxPlacement } from "./sandbox-command.js";
import { captureHome, SANDBOX_HOME_ENV, sandboxBaseEnv } from "./sandbox-env.js";
import {
  CommandSession,
  type CommandSessionInfo,
  type SessionOrigin,
  TERMINATE_GRACE_MS,
} from "./session.js";
import type { CommandLauncher } from "./session-spec.js";
import { ShellLookup } from "./shell-lookup.js";
import { DEFAULT_UNREAD_BUFFER_CHARS } from "./unread-buffer.js";

/**
 * "Command sessions: 64. When full, exited sessions are evicted first, then idle ones by LRU."
 * The number is the exec_command definition's (with `tools.limits.jobs.maxJobs`, whose default it
 * is); this manager enforces it: see `start` and `pickEviction`.
 */
export { MAX_COMMAND_SESSIONS };

/** Command-session ids handed to the model: `cmd_1`, `cmd_2`, … (never reused within a manager). */
export const COMMAND_ID_PREFIX = "cmd_";

export interface ProcessManagerOptions {
  /** Cap on sessions kept (running or exited); default 64. */
  maxSessions?: number;
  /** Per-session unread buffer in characters; default 1 MiB. */
  unreadBufferChars?: number;
  /** Extra environment for every command, on top of the inherited and non-interactive one. */
  env?: Record<string, string>;
  /** The environment commands inherit; default `process.env`. */
  baseEnv?: Readonly<Record<string, string | undefined>>;
  /** SIGTERM-to-SIGKILL grace for eviction, kill and disposal; default 1000 ms. */
  terminateGraceMs?: number;
  platform?: Platform;
  /**
   * `exec.login_environment` and where its capture runs (the workspace) and is kept (the
   * session's scratchpad). Absent: every command is a login shell (`bash -lc`).
   */
  loginEnvironment?: {
    mode: LoginEnvironmentMode;
    cwd: string;
    dir: string;
    /** When its capture starts (see LoginEnvironmentOptions.start); default `now`. */
    start?: "now" | "after-request";
  };
  /**
   * The process registry's folder (`<scratchpad>/processes`): each command is recorded there, a
   * run_command job writes its output to a spool file there, and the commands an earlier run of
   * this agent session left are found again from it. Absent: nothing survives the manager.
   */
  registryDir?: string;
  /** Present for a session of a `sandbox` execution profile: every command runs inside bwrap. */
  sandbox?: SandboxPlacement;
}

export type StartResult = { ok: true; session: CommandSession } | { ok: false; error: string };

/**
 * The command sessions of one agent session. exec_command starts them, input_command drives
 * them, and the owner disposes them all when the agent session ends.
 */
export class ProcessManager {
  readonly maxSessions: number;
  readonly unreadBufferChars: number;
  private readonly extraEnv: Record<string, string>;
  private readonly baseEnv: Readonly<Record<string, string | undefined>>;
  private readonly terminateGraceMs: number;
  private readonly platform: Platform;
  private readonly sessions = new Map<string, CommandSession>();
  /** Ended-but-not-yet-dead groups (evicted sessions), awaited by disposeAll. */
  private readonly terminations = new Set<Promise<void>>();
  private nextId = 1;
  private disposed = false;
  private readonly login: LoginEnvironment | undefined;
  private readonly exitListeners = new Set<(session: CommandSession) => void>();
  private readonly journal: ProcessJournal | undefined;
  private readonly sandbox: SandboxPlacement | undefined;
  private readonly shells: ShellLookup;

  constructor(options: ProcessManagerOptions = {}) {
    this.maxSessions = options.maxSessions ?? MAX_COMMAND_SESSIONS;
    this.unreadBufferChars = options.unreadBufferChars ?? DEFAULT_UNREAD_BUFFER_CHARS;
    if (!Number.isInteger(this.maxSessions) || this.maxSessions < 1) {
      throw new RangeError(`maxSessions must be a positive integer, got ${options.maxSessions}`);
    }
    if (!Number.isInteger(this.unreadBufferChars) || this.unreadBufferChars < 1) {
      throw new RangeError(`unreadBufferChars must be a positive integer, got ${options.unreadBufferChars}`);
    }
    // A sandboxed command keeps only safe variables (sandbox-env.ts); HOME is its private /tmp.
    this.extraEnv = options.sandbox ? { ...SANDBOX_HOME_ENV, ...options.env } : { ...options.env };
    const inherited = options.baseEnv ?? process.env;
    this.baseEnv = options.sandbox ? sandboxBaseEnv(inherited) : inherited;
    this.terminateGraceMs = options.terminateGraceMs ?? TERMINATE_GRACE_MS;
    this.platform = options.platform ?? process.platform;
    this.shells = new ShellLookup(this.platform, isExecutable);
    this.sandbox = options.sandbox;
    this.login = this.loginEnvironmentOf(options.loginEnvironment);
    this.journal = options.registryDir !== undefined ? new ProcessJournal(options.registryDir) : undefined;
    if (this.journal) this.restore(this.journal);
  }

  /** The session's captured login environment (its capture starts now or after the first request). */
  private loginEnvironmentOf(
    settings: ProcessManagerOptions["loginEnvironment"],
  ): LoginEnvironment | undefined {
    if (!settings || this.platform === "win32") return undefined;
    const env = nonInteractiveEnv(this.baseEnv, this.extraEnv);
    const shell = this.shells.resolve(env);
    if (!shell.ok) return undefined;
    const keep = new Set([...Object.keys(NON_INTERACTIVE_ENV), ...Object.keys(this.extraEnv)]);
    // The capture runs outside the sandbox: with an empty HOME of its own (see captureHome).
    const captureEnv = this.sandbox ? { ...env, HOME: captureHome(settings.dir) } : env;
    return new LoginEnvironment({ ...settings, shell: shell.shell, env: captureEnv, keep });
  }

  /** Warnings about the login environment not yet reported (a command tool reports them). */
  takeWarnings(): string[] {
    return this.login?.takeWarnings() ?? [];
  }

  /** Resolves once a capture of the login environment in progress has ended. */
  async loginEnvironmentSettled(): Promise<void> {
    await this.login?.settled();
  }

  /**
   * Before a command: starts a capture of the login environment that is due and waits for one
   * under way (or for `signal`), so that the command sources the captured file rather than the
   * profile beside the capture (login-environment.ts, `untilCaptured`). The command tools call it
   * before `start`.
   */
  async loginEnvironmentReady(signal?: AbortSignal): Promise<void> {
    await this.login?.untilCaptured(signal);
  }

  /**
   * Starts `bash -lc <cmd>` in `cwd` (absolute, checked by the caller) as a new session, or
   * `bash -c <cmd>` sourcing the session's captured login environment once it is ready (a caller
   * that can wait for a capture under way awaits `loginEnvironmentReady` first). When the
   * manager is full, one session is evicted first; when every session is in use by a running
   * tool call, nothing can be evicted and the start is refused.
   */
  start(request: {
    cmd: string;
    cwd: string;
    purpose?: string;
    origin?: SessionOrigin;
    /** Called with the new session's id right before its command starts (the call journals it). */
    beforeStart?: (id: string) => void;
  }): StartResult {
    if (this.disposed)
      return { ok: false, error: "the command sessions of this agent session have been shut down" };
    const env = nonInteractiveEnv(this.baseEnv, this.extraEnv);
    const shell = this.shells.resolve(env);
    if (!shell.ok) return shell;
    const launcher = this.sandboxLauncher(env);
    if (!launcher.ok) return launcher;
    const plan = this.login?.plan();
    if (this.sessions.size >= this.maxSessions) {
      const victim = this.pickEviction();
      if (!victim) {
        return {
          ok: false,
          error: `all ${this.maxSessions} command sessions are in use by running tool calls; wait for one to return and retry`,
        };
      }
      this.evict(victim);
    }
    const id = `${COMMAND_ID_PREFIX}${this.nextId++}`;
    let spoolFile: string | undefined;
    if (this.journal && request.origin === "run_command") {
      try {
        this.journal.prepare();
        spoolFile = this.journal.spoolPath(id);
      } catch {
        spoolFile = undefined; // no registry folder: the job's output goes through a pipe
      }
    }
    request.beforeStart?.(id);
    this.journal?.starting({
      id,
      cmd: request.cmd,
      cwd: request.cwd,
      origin: request.origin ?? "exec_command",
      ...(request.purpose !== undefined ? { purpose: request.purpose } : {}),
      ...(spoolFile !== undefined ? { spoolFile } : {}),
    });
    let session: CommandSession;
    try {
      session = new CommandSession({
        id,
        ...(spoolFile !== undefined ? { spoolFile } : {}),
        cmd: request.cmd,
        cwd: request.cwd,
        shell: shell.shell,
        shellFlags: plan?.flags,
        env: plan ? { ...env, ...plan.env } : env,
        unreadBufferChars: this.unreadBufferChars,
        platform: this.platform,
        purpose: request.purpose,
        origin: request.origin,
        onFinished: (finished) => this.finished(finished),
        ...(launcher.launch ? { launcher: launcher.launch(plan?.env.BASH_ENV) } : {}),
      });
    } catch (error) {
      // spawn() throws synchronously on arguments it cannot pass to exec (a NUL byte in cmd).
      this.journal?.forget(id, spoolFile);
      return { ok: false, error: `the command could not be started: ${(error as Error).message}` };
    }
    this.sessions.set(session.id, session);
    this.journal?.started(session);
    return { ok: true, session };
  }

  /** A sandbox session's launcher (given the login environment file it binds), or why it cannot start. */
  private sandboxLauncher(
    env: Readonly<Record<string, string | undefined>>,
  ):
    | { ok: true; launch?: (loginFile: string | undefined) => CommandLauncher }
    | { ok: false; error: string } {
    const placement = this.sandbox;
    if (!placement) return { ok: true };
    const bwrap = findOnPath(BWRAP_PROGRAM, { platform: this.platform, pathEnv: env.PATH, isExecutable });
    if (this.platform !== "linux" || !bwrap) {
      return {
        ok: false,
        error: `this session's execution profile runs commands in a sandbox, which needs bubblewrap (${BWRAP_PROGRAM}) on PATH on Linux: install the bubblewrap package, or start the session with a native profile`,
      };
    }
    return {
      ok: true,
      launch: (loginFile) => (command) => ({
        file: bwrap,
        args: bwrapArguments(placement, { ...command, readOnlyFiles: loginFile ? [loginFile] : [] }),
      }),
    };
  }

  private finished(session: CommandSession): void {
    this.journal?.ended(session);
    for (const listener of this.exitListeners) listener(session);
  }

  /** The commands an earlier run of this agent session left, found again in the registry. */
  private restore(journal: ProcessJournal): void {
    const restored = journal.restore({
      unreadBufferChars: this.unreadBufferChars,
      platform: this.platform,
      onFinished: (session) => this.finished(session),
    });
    for (const session of restored.sessions) this.sessions.set(session.id, session);
    this.nextId = Math.max(this.nextId, restored.nextNumber);
  }

  /**
   * Calls `listener` once for each command that exits, when its output is collected (a `job.exited`
   * notice is made from it). Returns the function that removes it.
   */
  onExit(listener: (session: CommandSession) => void): () => void {
    this.exitListeners.add(listener);
    return () => this.exitListeners.delete(listener);
  }

  get(id: string): CommandSession | undefined {
    return this.sessions.get(id);
  }

  /** Every kept session, oldest first. */
  list(): CommandSessionInfo[] {
    return [...this.sessions.values()].map((session) => session.info());
  }

  /** Ids of the sessions still running (for "unknown process_id" messages). */
  liveIds(): string[] {
    return [...this.sessions.values()].filter((session) => session.status === "running").map((s) => s.id);
  }

  /**
   * Ends a session's whole process group (SIGTERM, then SIGKILL after the grace). The session is
   * kept, so its final output and exit can still be read. False for an unknown id.
   */
  async kill(id: string): Promise<boolean> {
    const session = this.sessions.get(id);
    if (!session) return false;
    await session.terminate(this.terminateGraceMs);
    return true;
  }

  /**
   * Ends the process group of every kept session that still has a live process (a running
   * command, or children an exited shell left behind) and resolves with how many groups that was.
   * The sessions are kept, so their output and exit can still be read.
   */
  async endLiveGroups(): Promise<number> {
    const live = [...this.sessions.values()].filter((session) => session.hasLiveGroup());
    await Promise.all(live.map((session) => session.terminate(this.terminateGraceMs)));
    return live.length;
  }

  /** Ends every process group (SIGTERM, then SIGKILL after a short grace) and forgets every session. */
  async disposeAll(): Promise<void> {
    this.disposed = true;
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all([
      this.login?.dispose(),
      ...all.map((session) => session.terminate(this.terminateGraceMs)),
      ...this.terminations,
    ]);
    // Their exits arrive just after their groups are gone: waited for briefly, so that the
    // registry records how they ended rather than leaving them to look interrupted.
    if (this.journal) await waitForFinished(all, FINISH_RECORD_WAIT_MS);
  }

  /** Exited sessions first, then idle running ones; least recently used first within each. */
  private pickEviction(): CommandSession | undefined {
    const candidates = [...this.sessions.values()].filter((session) => session.activeCalls === 0);
    const byLru = (a: CommandSession, b: CommandSession) => a.useOrder - b.useOrder;
    const exited = candidates.filter((session) => session.status === "exited").sort(byLru);
    if (exited.length > 0) return exited[0];
    return candidates.sort(byLru)[0];
  }

  private evict(session: CommandSession): void {
    this.sessions.delete(session.id);
    this.journal?.forget(session.id, session.spoolFile);
    // An exited shell can leave children in its group (`server &`): end those too.
    const termination = session.terminate(this.terminateGraceMs);
    this.terminations.add(termination);
    void termination.finally(() => this.terminations.delete(termination));
  }
}

/** How long disposal waits for the exits of the commands it ended, to record them. */
const FINISH_RECORD_WAIT_MS = 500;

async function waitForFinished(sessions: readonly CommandSession[], ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (sessions.some((session) => !session.finished) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
