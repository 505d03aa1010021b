import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { ActivityWaiters } from "./activity-waiters.js";
import { OutputDecoder } from "./output-decoder.js";
import { type LineWindow, OutputLog } from "./output-log.js";
import {
  interruptPlan,
  type Platform,
  processGroupSpawnOptions,
  type SignalPlan,
  shellArgs,
  terminatePlan,
} from "./platform.js";

/**
 * How long a session waits after the shell exited for its pipes to close before it counts as
 * finished. Output the shell wrote before exiting is already in the pipe and arrives within this
 * window; a background child (`server &`) that inherited the pipes can keep them open forever,
 * and must not keep the call waiting.
 */
export const EXIT_DRAIN_GRACE_MS = 100;

/** "kill_command: SIGTERM group, SIGKILL after 1s grace" — the same grace for eviction and disposal. */
export const TERMINATE_GRACE_MS = 1000;

/** How often the group is checked for survivors while waiting out the grace. */
const GROUP_POLL_MS = 50;

export type SessionStatus = "running" | "exited";

/** How a command ended: an exit code, or the signal that terminated it, or a failure to start. */
export type CommandExit =
  | { kind: "code"; code: number }
  | { kind: "signal"; signal: NodeJS.Signals }
  | { kind: "spawn-error"; message: string };

/** The tool that started a session: exec_command sessions and run_command jobs are one kind of thing. */
export type SessionOrigin = "exec_command" | "run_command";

export interface CommandSessionSpec {
  id: string;
  cmd: string;
  cwd: string;
  shell: string;
  /** The shell's flags before the command; default a login shell (`-lc`). */
  shellFlags?: readonly string[];
  env: Record<string, string>;
  unreadBufferChars: number;
  platform?: Platform;
  /** Why it runs: run_command's `purpose`, exec_command's call description. */
  purpose?: string;
  origin?: SessionOrigin;
  /** Called once when the command has exited and its output is collected (see `finished`). */
  onFinished?: (session: CommandSession) => void;
}

/** A snapshot for process lists (the UI, the model's "live ids" hint). */
export interface CommandSessionInfo {
  id: string;
  cmd: string;
  cwd: string;
  pid: number | undefined;
  status: SessionStatus;
  exit: CommandExit | undefined;
  startedAt: number;
  lastUsedAt: number;
  /** When the command exited (absent while it runs). */
  endedAt?: number;
  purpose?: string;
  origin: SessionOrigin;
}

/** The note that ends a call on a finished command: `[exit code: N]` / `[terminated by signal S]`. */
export function exitNote(exit: CommandExit): string {
  switch (exit.kind) {
    case "code":
      return `[exit code: ${exit.code}]`;
    case "signal":
      return `[terminated by signal ${exit.signal}]`;
    case "spawn-error":
      return `[failed to start: ${exit.message}]`;
  }
}

/**
 * One command running as its own process group (`bash -lc <cmd>`, detached), with stdin kept open
 * as a pipe so that input_command can feed it, and stdout/stderr interleaved in arrival order into
 * one bounded unread buffer.
 *
 * Known limit: a descendant that calls setsid() itself (a daemonizing server, `setsid cmd &`)
 * leaves the process group and is not reached by Ctrl-C, eviction or disposal.
 */
export class CommandSession {
  readonly id: string;
  readonly cmd: string;
  readonly cwd: string;
  readonly purpose: string | undefined;
  readonly origin: SessionOrigin;
  readonly startedAt = Date.now();
  /** When the command exited. */
  endedAt: number | undefined;
  /** Last time a tool call started, polled or wrote to this session. */
  lastUsedAt = this.startedAt;
  /** Rises with every use across all sessions: orders LRU eviction even within one millisecond. */
  useOrder = nextUseOrder();
  /** Tool calls currently reading this session; a session in use is never evicted. */
  activeCalls = 0;

  private readonly platform: Platform;
  private readonly child: ChildProcessWithoutNullStreams;
  /** Everything the command printed, up to the cap (see OutputLog). */
  private readonly log: OutputLog;
  /**
   * The consuming readers' position in the log: exec_command, input_command, run_command and
   * wait_job return the output after it and move it on, so no output is returned twice.
   */
  private readCursor = 0;
  /** Whether the last termination had to escalate to the forced stage (SIGKILL). */
  private escalatedFlag = false;
  private exitInfo: CommandExit | undefined;
  private finishedFlag = false;
  private openStreams = 2;
  private drainTimer: NodeJS.Timeout | undefined;
  private stdinOpen = true;
  private readonly activity = new ActivityWaiters();
  private terminating: Promise<void> | undefined;
  private readonly onFinished: ((session: CommandSession) => void) | undefined;

  constructor(spec: CommandSessionSpec) {
    this.onFinished = spec.onFinished;
    this.id = spec.id;
    this.cmd = spec.cmd;
    this.cwd = spec.cwd;
    this.platform = spec.platform ?? process.platform;
    this.purpose = spec.purpose;
    this.origin = spec.origin ?? "exec_command";
    this.log = new OutputLog(spec.unreadBufferChars);
    this.child = spawn(spec.shell, spec.shellFlags ? [...spec.shellFlags, spec.cmd] : shellArgs(spec.cmd), {
      cwd: spec.cwd,
      env: spec.env,
      stdio: ["pipe", "pipe", "pipe"],
      ...processGroupSpawnOptions(this.platform),
    });
    this.child.on("error", (error) => {
      // Only a failure to start reaches here in practice (ENOENT shell, EACCES cwd); a failed
      // kill is handled where it is sent.
      if (this.child.pid === undefined && !this.exitInfo)
        this.onExit({ kind: "spawn-error", message: error.message });
    });
    this.child.on("exit", (code, signal) => {
      this.onExit(signal ? { kind: "signal", signal } : { kind: "code", code: code ?? 0 });
    });
    this.pipeOutput(this.child.stdout);
    this.pipeOutput(this.child.stderr);
    // EPIPE when the command closed its stdin: the write is reported by write(); never crash.
    this.child.stdin.on("error", () => {
      this.stdinOpen = false;
    });
    this.child.stdin.on("close", () => {
      this.stdinOpen = false;
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get status(): SessionStatus {
    return this.exitInfo ? "exited" : "running";
  }

  get exit(): CommandExit | undefined {
    return this.exitInfo;
  }

  /** Exited, and its output collected (the pipes closed, or the drain grace passed). */
  get finished(): boolean {
    return this.finishedFlag;
  }

  /** Characters currently held unread (bounded by the output buffer's cap). */
  get unreadChars(): number {
    return this.log.end - Math.max(this.readCursor, this.log.start);
  }

  get hasUnread(): boolean {
    return this.readCursor < this.log.end;
  }

  /** Whether a termination had to send the forced stage (SIGKILL) because SIGTERM was not enough. */
  get escalated(): boolean {
    return this.escalatedFlag;
  }

  /** Characters the command printed so far (dropped ones included). */
  get outputChars(): number {
    return this.log.end;
  }

  /** A window of output lines, read without consuming anything (read_job_output, list_jobs). */
  lineWindow(request: { offset?: number; limit: number }): LineWindow {
    return this.log.lineWindow(request);
  }

  info(): CommandSessionInfo {
    return {
      id: this.id,
      cmd: this.cmd,
      cwd: this.cwd,
      pid: this.pid,
      status: this.status,
      exit: this.exitInfo,
      startedAt: this.startedAt,
      lastUsedAt: this.lastUsedAt,
      ...(this.endedAt !== undefined ? { endedAt: this.endedAt } : {}),
      ...(this.purpose !== undefined ? { purpose: this.purpose } : {}),
      origin: this.origin,
    };
  }

  touch(): void {
    this.lastUsedAt = Date.now();
    this.useOrder = nextUseOrder();
  }

  /** Everything not read yet; reading consumes it. */
  takeUnread(): string {
    const text = this.log.readFrom(this.readCursor);
    this.readCursor = this.log.end;
    return text;
  }

  /**
   * Resolves when there is news (output, exit, finish), after `ms`, or when `signal` aborts,
   * whichever comes first.
   */
  waitForActivity(ms: number, signal?: AbortSignal): Promise<void> {
    if (this.hasUnread || this.finishedFlag) return Promise.resolve();
    return this.activity.wait(ms, signal);
  }

  /** Writes to stdin. Fails (with a reason) when the command has exited or closed its stdin. */
  async write(chars: string): Promise<{ ok: true } | { ok: false; error: string }> {
    if (this.exitInfo) return { ok: false, error: "the command has exited" };
    if (!this.stdinOpen || this.child.stdin.destroyed) {
      return { ok: false, error: "the command has closed its stdin" };
    }
    return new Promise((resolve) => {
      this.child.stdin.write(chars, (error) => {
        resolve(error ? { ok: false, error: `writing to stdin failed: ${error.message}` } : { ok: true });
      });
    });
  }

  /** Closes stdin: the command reads end-of-file (what Ctrl-D does at a terminal). */
  closeStdin(): { ok: true } | { ok: false; error: string } {
    if (this.exitInfo) return { ok: false, error: "the command has exited" };
    if (!this.stdinOpen) return { ok: false, error: "stdin is already closed" };
    this.stdinOpen = false;
    this.child.stdin.end();
    return { ok: true };
  }

  /**
   * Whether anything of the process group still lives: the command, or children its shell left
   * behind after it exited (`sleep 1000 &`).
   */
  hasLiveGroup(): boolean {
    if (this.pid === undefined) return false;
    return this.platform === "win32" ? this.exitInfo === undefined : groupAlive(this.pid);
  }

  /** Ctrl-C: SIGINT to the whole process group (a tree kill on Windows). */
  interrupt(): void {
    if (this.pid === undefined || this.exitInfo) return;
    deliver(interruptPlan(this.platform, this.pid));
  }

  /**
   * Ends the whole process group: SIGTERM, then SIGKILL after the grace if anything of the group
   * is still alive. Also runs after the shell exited, for children it left behind in the group.
   * Idempotent; resolves once the group is gone (or the forced stage has been sent and waited for).
   *
   * The group id is the shell's pid, so a group that emptied long ago could in principle have had
   * its id reused by an unrelated new group leader; that needs a full pid wrap-around within
   * one agent session and is accepted, since children left behind (`nohup server > log &`, which
   * closes the pipes) can only be found through the group.
   */
  terminate(graceMs: number = TERMINATE_GRACE_MS): Promise<void> {
    this.terminating ??= this.runTermination(graceMs);
    return this.terminating;
  }

  private async runTermination(graceMs: number): Promise<void> {
    const pid = this.pid;
    if (pid !== undefined) {
      const plan = terminatePlan(this.platform, pid);
      deliver(plan.polite);
      if (!(await this.waitForGroupGone(pid, graceMs))) {
        this.escalatedFlag = true;
        deliver(plan.forced);
        await this.waitForGroupGone(pid, graceMs);
      }
    }
    this.child.stdin.destroy();
    // Pipes held open by an escaped (setsid) descendant must not keep this session alive.
    this.child.stdout.destroy();
    this.child.stderr.destroy();
  }

  /**
   * signal_job `kill`: the forced stage (SIGKILL to the whole group, a tree kill on Windows) at
   * once, with no polite stage first. Resolves once the group is gone or after `waitMs`.
   */
  async forceKill(waitMs: number = TERMINATE_GRACE_MS): Promise<void> {
    const pid = this.pid;
    if (pid !== undefined) {
      deliver(terminatePlan(this.platform, pid).forced);
      await this.waitForGroupGone(pid, waitMs);
    }
    this.child.stdin.destroy();
    this.child.stdout.destroy();
    this.child.stderr.destroy();
  }

  private async waitForGroupGone(pid: number, ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    for (;;) {
      const gone = this.platform === "win32" ? this.exitInfo !== undefined : !groupAlive(pid);
      if (gone) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, GROUP_POLL_MS));
    }
  }

  private pipeOutput(stream: NodeJS.ReadableStream): void {
    const decoder = new OutputDecoder();
    stream.on("data", (chunk: Buffer) => {
      const text = decoder.write(chunk);
      this.append(text, decoder.lastWriteAscii);
    });
    let closed = false;
    const onClose = () => {
      if (closed) return;
      closed = true;
      this.append(decoder.end());
      this.openStreams -= 1;
      if (this.openStreams === 0 && this.exitInfo) this.markFinished();
    };
    stream.on("end", onClose);
    stream.on("close", onClose);
    stream.on("error", onClose);
  }

  private append(text: string, knownOneByte = false): void {
    if (text.length === 0) return;
    this.log.append(text, knownOneByte);
    this.activity.wake();
  }

  private onExit(exit: CommandExit): void {
    if (this.exitInfo) return;
    this.exitInfo = exit;
    this.endedAt = Date.now();
    this.stdinOpen = false;
    if (exit.kind === "spawn-error" || this.openStreams === 0) {
      this.markFinished();
    } else {
      this.drainTimer = setTimeout(() => this.markFinished(), EXIT_DRAIN_GRACE_MS);
      this.drainTimer.unref();
    }
    this.activity.wake();
  }

  private markFinished(): void {
    if (this.finishedFlag) return;
    this.finishedFlag = true;
    clearTimeout(this.drainTimer);
    this.activity.wake();
    this.onFinished?.(this);
  }
}

let useCounter = 0;
function nextUseOrder(): number {
  useCounter += 1;
  return useCounter;
}

/**
 * Whether a live process is left in process group `pgid`. `kill(-pgid, 0)` also counts zombies:
 * children orphaned by the shell are reparented to init, and an init that does not reap (common
 * in containers) would leave them as zombies forever, so on Linux a group that still answers is
 * checked in /proc for a member that is not a zombie.
 */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  return process.platform === "linux" ? procHasLiveMember(pgid) : true;
}

function procHasLiveMember(pgid: number): boolean {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // exited meanwhile
    }
    // "pid (comm) state ppid pgrp …"; comm may contain spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) === pgid && fields[0] !== "Z") return true;
  }
  return false;
}

function deliver(plan: SignalPlan): void {
  if (plan.kind === "group-signal") {
    try {
      process.kill(-plan.pgid, plan.signal);
    } catch {
      // ESRCH: the group is already gone.
    }
    return;
  }
  const helper = spawn(plan.file, plan.args, { stdio: "ignore", windowsHide: true });
  helper.on("error", () => {
    // The tree may already be gone, or the helper missing; nothing more can be done.
  });
}
