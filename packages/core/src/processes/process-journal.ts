import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Platform } from "./platform.js";
import { checkIdentity, currentBootId, identityOf, type ProcessIdentity } from "./process-identity.js";
import {
  idNumber,
  type ProcessRecord,
  readProcessRecords,
  removeProcessRecord,
  spoolFileName,
  tidyProcessRecords,
  writeProcessRecord,
} from "./registry.js";
import { type CommandExit, CommandSession, type SessionOrigin } from "./session.js";

/** The identity a record holds, when it holds one. */
export function recordedIdentity(record: ProcessRecord): ProcessIdentity | undefined {
  if (record.pid === undefined || record.start_ticks === undefined || record.boot_id === undefined)
    return undefined;
  return { pid: record.pid, startTicks: record.start_ticks, bootId: record.boot_id };
}

/**
 * Keeps an agent session's process registry in step with its command sessions: a record when a
 * command starts (with what identifies its process) and when it ends, and, when the session is
 * resumed, the commands of the records found again: re-attached when their process still runs,
 * ended otherwise.
 */
export class ProcessJournal {
  private readonly bootId = currentBootId();
  private readonly identities = new Map<string, ProcessIdentity>();
  /** Evicted ids: their end is not recorded (their record is gone on purpose). */
  private readonly forgotten = new Set<string>();

  constructor(readonly dir: string) {}

  /** Makes the folder (private) before a spool is opened in it. */
  prepare(): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
  }

  spoolPath(id: string): string {
    return join(this.dir, spoolFileName(id));
  }

  /**
   * Records a command about to start, before its process exists: a crash between this and
   * `started` leaves a record without a pid, which a resume reports as interrupted (it may have
   * run) and never signals.
   */
  starting(command: {
    id: string;
    cmd: string;
    cwd: string;
    purpose?: string;
    origin: SessionOrigin;
    spoolFile?: string;
  }): void {
    this.put({ ...describedCommand({ ...command, startedAt: Date.now() }), state: "running" });
  }

  /** Records a command that has just started: its pid and start time, read while it surely lives. */
  started(session: CommandSession): void {
    const identity = session.pid !== undefined ? identityOf(session.pid, this.bootId) : undefined;
    if (identity) this.identities.set(session.id, identity);
    this.write(session);
  }

  /** Records how a command ended (its exit status, or that it is unknown). */
  ended(session: CommandSession): void {
    if (this.forgotten.has(session.id)) return;
    this.write(session);
  }

  /** Forgets an evicted command: its record, and its spool when it has one. */
  forget(id: string, spoolFile: string | undefined): void {
    this.identities.delete(id);
    this.forgotten.add(id);
    removeProcessRecord(this.dir, id, spoolFile);
  }

  /** The commands of an earlier run of this agent session, and the next free id number. */
  restore(options: {
    unreadBufferChars: number;
    platform: Platform;
    onFinished: (session: CommandSession) => void;
  }): { sessions: CommandSession[]; nextNumber: number } {
    const records = this.tidy();
    const sessions = records.map((record) => this.restoreOne(record, options));
    const nextNumber = Math.max(0, ...records.map((record) => idNumber(record.id))) + 1;
    return { sessions, nextNumber };
  }

  private restoreOne(
    record: ProcessRecord,
    options: { unreadBufferChars: number; platform: Platform; onFinished: (session: CommandSession) => void },
  ): CommandSession {
    const identity = recordedIdentity(record);
    const check = record.state === "running" && identity ? checkIdentity(identity, this.bootId) : "gone";
    if (identity && check === "running") this.identities.set(record.id, identity);
    const spec = {
      id: record.id,
      cmd: record.command,
      cwd: record.cwd,
      origin: record.origin,
      startedAt: record.started_at,
      pid: record.pid,
      unreadBufferChars: options.unreadBufferChars,
      platform: options.platform,
      ...(record.purpose !== undefined ? { purpose: record.purpose } : {}),
      ...(record.output_file !== undefined ? { spoolFile: join(this.dir, record.output_file) } : {}),
      ...(record.ended_at !== undefined ? { endedAt: record.ended_at } : {}),
      onFinished: options.onFinished,
    };
    if (identity && check === "running") {
      return new CommandSession({ ...spec, check: () => checkIdentity(identity, this.bootId) });
    }
    return new CommandSession({ ...spec, exit: endedExit(record, check === "reused") });
  }

  /** The records, the registry's file rewritten first if another process left it untidy (registry.ts). */
  private tidy(): ProcessRecord[] {
    try {
      return tidyProcessRecords(this.dir);
    } catch {
      // A registry that cannot be rewritten is still read; its lines are appended to as they are.
      return readProcessRecords(this.dir);
    }
  }

  private write(session: CommandSession): void {
    const identity = this.identities.get(session.id);
    const exit = session.exit;
    const record: ProcessRecord = {
      ...describedCommand(session),
      ...(session.pid !== undefined ? { pid: session.pid, pgid: session.pid } : {}),
      ...(identity ? { start_ticks: identity.startTicks, boot_id: identity.bootId } : {}),
      ...recordedEnd(exit),
      ...(session.endedAt !== undefined ? { ended_at: session.endedAt } : {}),
    };
    this.put(record);
  }

  private put(record: ProcessRecord): void {
    try {
      writeProcessRecord(this.dir, record);
    } catch {
      // A registry that cannot be written costs only recovery after a crash, never the command.
    }
  }
}

/** The fields of a record that tell what the command is: the same before and after it starts. */
function describedCommand(command: {
  id: string;
  origin: SessionOrigin;
  cmd: string;
  cwd: string;
  purpose?: string | undefined;
  startedAt: number;
  spoolFile?: string | undefined;
}): Pick<ProcessRecord, "id" | "origin" | "command" | "cwd" | "purpose" | "started_at" | "output_file"> {
  return {
    id: command.id,
    origin: command.origin,
    command: command.cmd,
    cwd: command.cwd,
    ...(command.purpose !== undefined ? { purpose: command.purpose } : {}),
    started_at: command.startedAt,
    ...(command.spoolFile !== undefined ? { output_file: spoolFileName(command.id) } : {}),
  };
}

/** How a record that is not running any more ended. */
function endedExit(record: ProcessRecord, reused: boolean): CommandExit {
  if (reused || record.pid_reused) return { kind: "unknown", reason: "pid-reused" };
  if (record.exit) return record.exit as CommandExit;
  return { kind: "unknown", reason: "interrupted" };
}

function recordedEnd(exit: CommandExit | undefined): Pick<ProcessRecord, "state" | "exit" | "pid_reused"> {
  if (!exit) return { state: "running" };
  if (exit.kind !== "unknown") return { state: "exited", exit };
  if (exit.reason === "pid-reused") return { state: "interrupted", pid_reused: true };
  return { state: exit.reason === "adopted" ? "exited" : "interrupted" };
}
