import { join } from "node:path";
import {
  describeRetainedProcess,
  gatherEvidence,
  type RetainedProcess,
  retainedProcesses,
} from "@penguin/core";
import type { JournalEntry, TraceLocation } from "@penguin/trace";
import { toolJournal } from "@penguin/trace";
import type { RecoveryResponse } from "./recovery-schemas.js";
import type { TraceReading } from "./trace-reads.js";

// What a crash may have left half done, for `GET /api/sessions/:id/recovery`: the session's tool
// calls that started and have no result and no decision (uncertain), each with Penguin's own check
// of the workspace; the decisions taken on such calls; and the commands and jobs its process
// registry holds. Read from the trace's journal (the reader `penguin sessions show` uses) and the
// scratchpad's registry. Reading signals no process and changes nothing.

export type { RecoveryResponse } from "./recovery-schemas.js";

/** The directory of the session's process registry and spools. */
export function sessionScratchpad(location: TraceLocation, sessionId: string): string {
  return join(location.scratchpadRoot, sessionId);
}

/**
 * The recovery view of a session. `taskRunning`: a task of the session runs now, so the calls it
 * dispatched (after its user input, the last one in the trace) may simply not have finished yet.
 */
export async function recoveryOf(
  reading: TraceReading,
  scratchpad: string,
  taskRunning: boolean,
): Promise<RecoveryResponse> {
  const journal = toolJournal(reading.records);
  const runningSince = taskRunning ? lastUserInputAt(reading) : undefined;
  const describeProcess = (id: string) => describeRetainedProcess(scratchpad, id);
  const uncertain = await Promise.all(
    journal
      .filter((entry) => entry.uncertain)
      .map((entry) => uncertainRow(entry, runningSince, describeProcess)),
  );
  return {
    uncertain,
    resolved: journal.flatMap((entry) => {
      const resolution = entry.resolution;
      if (!resolution) return [];
      return [
        {
          tool_call_id: entry.toolCallId,
          name: entry.name,
          decision: resolution.decision,
          evidence: resolution.evidence,
          by: resolution.by,
          ...(resolution.verified !== undefined ? { verified: resolution.verified } : {}),
          at: resolution.at,
        },
      ];
    }),
    processes: retainedProcesses(scratchpad).map(processRow),
  };
}

/** Whether the call is one the running task dispatched (it may simply not have finished yet). */
export function callInProgress(reading: TraceReading, toolCallId: string, taskRunning: boolean): boolean {
  if (!taskRunning) return false;
  const entry = toolJournal(reading.records).find((candidate) => candidate.toolCallId === toolCallId);
  const since = lastUserInputAt(reading);
  return entry !== undefined && since !== undefined && (entry.dispatchedAt ?? "") >= since;
}

/** Whether the session's own journal holds the call at all. */
export function journalHolds(reading: TraceReading, toolCallId: string): boolean {
  return toolJournal(reading.records).some((entry) => entry.toolCallId === toolCallId);
}

async function uncertainRow(
  entry: JournalEntry,
  runningSince: string | undefined,
  describeProcess: (id: string) => string | undefined,
) {
  const check = await gatherEvidence(entry, { describeProcess });
  return {
    tool_call_id: entry.toolCallId,
    name: entry.name,
    arguments: entry.arguments,
    ...(entry.dispatchedAt !== undefined ? { dispatched_at: entry.dispatchedAt } : {}),
    files: entry.files.map((file) => ({
      path: file.path,
      before_sha256: file.before_sha256,
      after_sha256: file.after_sha256,
    })),
    ...(entry.processId !== undefined ? { process_id: entry.processId } : {}),
    in_progress: runningSince !== undefined && (entry.dispatchedAt ?? "") >= runningSince,
    evidence: check.summary,
    ...(check.suggestion !== undefined ? { suggestion: check.suggestion } : {}),
  };
}

function processRow(process: RetainedProcess) {
  return {
    id: process.id,
    origin: process.origin,
    command: process.command,
    state: process.state,
    ...(process.pid !== undefined ? { pid: process.pid } : {}),
    ...(process.exit !== undefined ? { exit: process.exit } : {}),
    started_at: new Date(process.startedAt).toISOString(),
    ...(process.endedAt !== undefined ? { ended_at: new Date(process.endedAt).toISOString() } : {}),
    output_bytes: process.outputBytes,
  };
}

function lastUserInputAt(reading: TraceReading): string | undefined {
  for (let i = reading.records.length - 1; i >= 0; i--) {
    const record = reading.records[i];
    if (record?.type === "model_msg" && "role" in record.payload && record.payload.role === "user") {
      return record.timestamp;
    }
  }
  return undefined;
}
