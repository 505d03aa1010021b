import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { ActivityWaiters } from "./activity-waiters.js";
import type { CommandExit } from "./command-exit.js";
import { OutputDecoder } from "./output-decoder.js";
import { type LineWindow, OutputLog } from "./output-log.js";
import {
  interruptPlan,
  type Platform,
  processGroupSpawnOptions,
  shellArgs,
  terminatePlan,
} from "./platform.js";
import { deliver, groupAlive } from "./process-group.js";
import type { CommandSessionSpec, RetainedSessionSpec, SessionOrigin } from "./session-spec.js";
import { SpoolTail } from "./spool-tail.js";

export { type CommandExit, exitNote, type UnknownExitReason } from "./command-exit.js";
export type { CommandSessionSpec, RetainedSessionSpec, SessionOrigin } from "./session-spec.js";

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

/** How often a re-attached process is checked for having ended. */
const ADOPTED_POLL_MS = 100;

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
  readonly startedAt: number;
  /** The output spool the command writes to (run_command jobs of a session with a scratchpad). */
  readonly spoolFile: string | undefined;
  /** When the command exited. */
  endedAt: number | undefined;
  /** Last time a tool call started, polled or wrote to this session. */
  lastUsedAt: number;
  /** Rises with every use across all sessions: orders LRU eviction even within one millisecond. */
  useOrder = nextUseOrder();
  /** Tool calls currently reading this session; a session in use is never evicted. */
  activeCalls = 0;

  private readonly platform: Platform;
  /** The command as Penguin's child; absent for one re-attached after a restart. */
  private readonly child: ChildProcess | undefined;
  /** The pid as started or recorded (shown to people). */
  private readonly knownPid: number | undefined;
  /**
   * The process group Penguin may signal: its own child's, or a re-attached one's checked to be
   * the same process. Never a recorded pid that could not be checked, or that now names another
   * program.
   */
  private signalPid: number | undefined;
  private spool: SpoolTail | undefined;
  private spoolDecoder: OutputDecoder | undefined;
  private adoptedTimer: NodeJS.Timeout | undefined;
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

  constructor(spec: CommandSessionSpec<CommandSession> | RetainedSessionSpec<CommandSession>) {
    this.onFinished = spec.onFinished;
    this.id = spec.id;
    this.cmd = spec.cmd;
    this.cwd = spec.cwd;
    this.platform = spec.platform ?? process.platform;
    this.purpose = spec.purpose;
    this.origin = spec.origin ?? "exec_command";
    this.spoolFile = spec.spoolFile;
    this.log = new OutputLog(spec.unreadBufferChars);
    if (!("shell" in spec)) {
      this.startedAt = spec.startedAt;
      this.lastUsedAt = spec.startedAt;
      this.knownPid = spec.pid;
      this.retain(spec);
      return;
    }
    this.startedAt = Date.now();
    this.lastUsedAt = this.startedAt;
    const child = this.spawnChild(spec);
    this.child = child;
    this.knownPid = child.pid;
    this.signalPid = child.pid;
    child.on("error", (error) => {
      // Only a failure to start reaches here in practice (ENOENT shell, EACCES cwd); a failed
      // kill is handled where it is sent.
      if (child.pid === undefined && !this.exitInfo)
        this.onExit({ kind: "spawn-error", message: error.message });
    });
    child.on("exit", (code, signal) => {
      this.onExit(signal ? { kind: "signal", signal } : { kind: "code", code: code ?? 0 });
    });
    if (spec.spoolFile !== undefined) {
      this.openStreams = 0;
      this.followSpool(spec.spoolFile, 0);
      this.spool?.start();
    } else {
      if (child.stdout) this.pipeOutput(child.stdout);
      if (child.stderr) this.pipeOutput(child.stderr);
    }
    // EPIPE when the command closed its stdin: the write is reported by write(); never crash.
    child.stdin?.on("error", () => {
      this.stdinOpen = false;
    });
    child.stdin?.on("close", () => {
      this.stdinOpen = false;
    });
  }

  /** Starts the command; its output goes to the spool file when there is one, else to pipes. */
  private spawnChild(spec: CommandSessionSpec<CommandSession>): ChildProcess {
    const args = spec.shellFlags ? [...spec.shellFlags, spec.cmd] : shellArgs(spec.cmd);
    const launch = spec.launcher?.({ shell: spec.shell, args, cwd: spec.cwd }) ?? { file: spec.shell, args };
    const out = spec.spoolFile !== undefined ? openSync(spec.spoolFile, "a", 0o600) : undefined;
    try {
      return spawn(launch.file, launch.args, {
        cwd: spec.cwd,
        env: spec.env,
        stdio: out === undefined ? ["pipe", "pipe", "pipe"] : ["pipe", out, out],
        ...processGroupSpawnOptions(this.platform),
      });
    } finally {
      // The child holds its own copy of the descriptor.
      if (out !== undefined) closeSync(out);
    }
  }

  /** A command found again after a restart: re-attached while it runs, else ended as recorded. */
  private retain(spec: RetainedSessionSpec<CommandSession>): void {
    this.stdinOpen = false;
    this.openStreams = 0;
    if (spec.spoolFile !== undefined) {
      // Only the end of a long spool can be held (at most 4 bytes per character).
      const size = SpoolTail.sizeOf(spec.spoolFile);
      this.followSpool(spec.spoolFile, Math.max(0, size - spec.unreadBufferChars * 4));
    }
    const check = spec.check;
    if (check === undefined) {
      this.onExit(spec.exit ?? { kind: "unknown", reason: "interrupted" });
      if (spec.endedAt !== undefined) this.endedAt = spec.endedAt;
      return;
    }
    // Not Penguin's child: no exit event will come, so whether it still runs is polled.
    this.signalPid = spec.pid;
    this.spool?.drain();
    this.spool?.start();
    this.adoptedTimer = setInterval(() => {
      const now = check();
      if (now === "running") return;
      // A reused pid leads no group of this command's any more (a group id is not reused while
      // the group has members): it is another program's, and is never signalled.
      if (now === "reused") this.signalPid = undefined;
      this.onExit({ kind: "unknown", reason: now === "reused" ? "pid-reused" : "adopted" });
    }, ADOPTED_POLL_MS);
    this.adoptedTimer.unref();
  }

  private followSpool(file: string, fromByte: number): void {
    const decoder = new OutputDecoder();
    this.spoolDecoder = decoder;
    this.spool = new SpoolTail(file, (bytes) => this.append(decoder.write(bytes), decoder.lastWriteAscii), {
      fromByte,
    });
  }

  get pid(): number | undefined {
    return this.knownPid;
  }

  /**
   * Whether Penguin holds the process group: false for a command found ended after a restart, or
   * re-attached and then found with its pid reused, whose recorded pid may now name another
   * program (it must never be signalled).
   */
  get canSignal(): boolean {
    return this.signalPid !== undefined;
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
    const stdin = this.child?.stdin;
    if (!stdin)
      return {
        ok: false,
        error: "the command's stdin is not connected: it was started before Penguin restarted",
      };
    if (!this.stdinOpen || stdin.destroyed) {
      return { ok: false, error: "the command has closed its stdin" };
    }
    return new Promise((resolve) => {
      stdin.write(chars, (error) => {
        resolve(error ? { ok: false, error: `writing to stdin failed: ${error.message}` } : { ok: true });
      });
    });
  }

  /** Closes stdin: the command reads end-of-file (what Ctrl-D does at a terminal). */
  closeStdin(): { ok: true } | { ok: false; error: string } {
    if (this.exitInfo) return { ok: false, error: "the command has exited" };
    if (!this.child?.stdin)
      return {
        ok: false,
        error: "the command's stdin is not connected: it was started before Penguin restarted",
      };
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
    if (this.signalPid === undefined) return false;
    return this.platform === "win32" ? this.exitInfo === undefined : groupAlive(this.signalPid);
  }

  /** Ctrl-C: SIGINT to the whole process group (a tree kill on Windows). */
  interrupt(): void {
    if (this.signalPid === undefined || this.exitInfo) return;
    deliver(interruptPlan(this.platform, this.signalPid));
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
    const pid = this.signalPid;
    if (pid !== undefined) {
      const plan = terminatePlan(this.platform, pid);
      deliver(plan.polite);
      if (!(await this.waitForGroupGone(pid, graceMs))) {
        this.escalatedFlag = true;
        deliver(plan.forced);
        await this.waitForGroupGone(pid, graceMs);
      }
    }
    // Pipes held open by an escaped (setsid) descendant must not keep this session alive.
    this.closeStreams();
  }

  /**
   * signal_job `kill`: the forced stage (SIGKILL to the whole group, a tree kill on Windows) at
   * once, with no polite stage first. Resolves once the group is gone or after `waitMs`.
   */
  async forceKill(waitMs: number = TERMINATE_GRACE_MS): Promise<void> {
    const pid = this.signalPid;
    if (pid !== undefined) {
      deliver(terminatePlan(this.platform, pid).forced);
      await this.waitForGroupGone(pid, waitMs);
    }
    this.closeStreams();
  }

  /** Stops following the spool, keeping what it holds. Idempotent. */
  private finishSpool(): void {
    if (!this.spool) return;
    this.spool.stop();
    this.spool = undefined;
    this.append(this.spoolDecoder?.end() ?? "");
  }

  private closeStreams(): void {
    this.finishSpool();
    this.child?.stdin?.destroy();
    this.child?.stdout?.destroy();
    this.child?.stderr?.destroy();
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
    clearInterval(this.adoptedTimer);
    // Everything the command wrote before it exited is in the file now. Children it left running
    // in its group (`server &`) may write more: the spool is followed until the group is ended.
    // Only a followed spool needs the group checked (a scan of /proc): a pipe closes by itself.
    if (this.spool) {
      this.spool.drain();
      const leftovers =
        this.child !== undefined && this.signalPid !== undefined && groupAlive(this.signalPid);
      if (!leftovers) this.finishSpool();
    }
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
