import { join } from "node:path";
import { checkIdentity } from "./process-identity.js";
import { recordedIdentity } from "./process-journal.js";
import { type ProcessRecord, processRegistryDir, readProcessRecord, readProcessRecords } from "./registry.js";
import { SpoolTail } from "./spool-tail.js";

// What a session's process registry says now, for people and front ends (the server, the CLI, the
// notice a resumed session gets): each command or job with its state checked against the running
// system. Reading changes nothing and signals nothing.

/**
 * `running`: the recorded process still runs (same pid, same start time, same boot). `exited`: it
 * ended while Penguin watched (the exit status is known, unless it had been re-attached).
 * `interrupted`: it ended while Penguin was not running (exit status unknown). `reused-pid`: its
 * pid now belongs to another program, which Penguin never touches.
 */
export type RetainedProcessState = "running" | "exited" | "interrupted" | "reused-pid";

export interface RetainedProcess {
  id: string;
  origin: "exec_command" | "run_command";
  command: string;
  cwd: string;
  purpose?: string;
  pid?: number;
  /** Epoch milliseconds. */
  startedAt: number;
  endedAt?: number;
  state: RetainedProcessState;
  /** How it ended, when that is known (never for `interrupted` and `reused-pid`). */
  exit?:
    | { kind: "code"; code: number }
    | { kind: "signal"; signal: string }
    | { kind: "spawn-error"; message: string };
  /** The output spool (absent: the output went through a pipe and was not kept). */
  outputFile?: string;
  /** Bytes in the spool now. */
  outputBytes: number;
}

/** Every command and job recorded in the session's scratchpad, oldest first, with its state now. */
export function retainedProcesses(scratchpadDir: string): RetainedProcess[] {
  const dir = processRegistryDir(scratchpadDir);
  return readProcessRecords(dir).map((record) => retainedOf(dir, record));
}

/**
 * The commands and jobs the registry still has as running, with their state now: what a crash
 * left (a session that ends cleanly ends its own). Read it before a resumed session restores
 * them: the restore records the ones that ended as interrupted.
 */
export function processesLeftRunning(scratchpadDir: string): RetainedProcess[] {
  const dir = processRegistryDir(scratchpadDir);
  return readProcessRecords(dir)
    .filter((record) => record.state === "running")
    .map((record) => retainedOf(dir, record));
}

/**
 * One line of evidence about a recorded command, or undefined for an id the registry lacks:
 * `cmd_2 (run_command) "npm run dev": running, pid 4242; output 2.0 KiB`.
 */
export function describeRetainedProcess(scratchpadDir: string, id: string): string | undefined {
  const dir = processRegistryDir(scratchpadDir);
  // Only this id's record is checked against the running system: a caller with one id need not check them all.
  const record = readProcessRecord(dir, id);
  return record ? describeRetained(retainedOf(dir, record)) : undefined;
}

/**
 * Describes commands by id from one reading of the registry (`retainedProcesses`), so a caller
 * that describes several calls reads the registry and checks each pid once, not once a call.
 */
export function processDescriber(processes: readonly RetainedProcess[]): (id: string) => string | undefined {
  const byId = new Map(processes.map((process) => [process.id, process]));
  return (id) => {
    const found = byId.get(id);
    return found === undefined ? undefined : describeRetained(found);
  };
}

function describeRetained(found: RetainedProcess): string {
  const command = JSON.stringify(
    found.command.length > 120 ? `${found.command.slice(0, 120)}…` : found.command,
  );
  const output =
    found.outputFile === undefined
      ? "output not kept (it went through a pipe)"
      : `output ${formatBytes(found.outputBytes)}`;
  return `${found.id} (${found.origin}) ${command}: ${stateLine(found)}; ${output}`;
}

function retainedOf(dir: string, record: ProcessRecord): RetainedProcess {
  const outputFile = record.output_file !== undefined ? join(dir, record.output_file) : undefined;
  return {
    id: record.id,
    origin: record.origin,
    command: record.command,
    cwd: record.cwd,
    ...(record.purpose !== undefined ? { purpose: record.purpose } : {}),
    ...(record.pid !== undefined ? { pid: record.pid } : {}),
    startedAt: record.started_at,
    ...(record.ended_at !== undefined ? { endedAt: record.ended_at } : {}),
    state: stateOf(record),
    ...(record.exit !== undefined ? { exit: record.exit } : {}),
    ...(outputFile !== undefined ? { outputFile } : {}),
    outputBytes: outputFile !== undefined ? SpoolTail.sizeOf(outputFile) : 0,
  };
}

function stateOf(record: ProcessRecord): RetainedProcessState {
  if (record.pid_reused) return "reused-pid";
  if (record.state !== "running") return record.state;
  const identity = recordedIdentity(record);
  // Without a start time the pid cannot be told from a later one: it is not counted as running.
  if (!identity) return "interrupted";
  const check = checkIdentity(identity);
  return check === "running" ? "running" : check === "reused" ? "reused-pid" : "interrupted";
}

function stateLine(entry: RetainedProcess): string {
  const pid = entry.pid !== undefined ? `pid ${entry.pid}` : "no pid";
  switch (entry.state) {
    case "running":
      return `running, ${pid}`;
    case "interrupted":
      return "interrupted: it ended while Penguin was not running; exit code unknown";
    case "reused-pid":
      return `gone: ${pid} now belongs to another program, which was never signalled; exit code unknown`;
    case "exited": {
      const exit = entry.exit;
      if (!exit) return "exited; exit code unknown (it had been re-attached after a restart)";
      if (exit.kind === "code") return `exited with exit code ${exit.code}`;
      if (exit.kind === "signal") return `terminated by signal ${exit.signal}`;
      return `failed to start: ${exit.message}`;
    }
  }
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
