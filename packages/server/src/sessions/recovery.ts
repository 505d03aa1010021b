import { join } from "node:path";
import { type RetainedProcess, recoveryView, type StepEvidence } from "@penguin/core";
import { type JournalEntry, type TraceLocation, toolJournal } from "@penguin/trace";
import type { RecoveryResponse } from "./recovery-schemas.js";
import type { TraceReading } from "./trace-reads.js";

// What a crash may have left half done, for `GET /api/sessions/:id/recovery`: the session's tool
// calls that started and have no result and no decision (uncertain), each with Penguin's own check
// of the workspace; the decisions taken on such calls; and the commands and jobs its process
// registry holds. Core's `recoveryView` reads them (as `penguin sessions show` does); this file
// gives them the API's shape. Reading signals no process and changes nothing.

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
  const view = await recoveryView(toolJournal(reading.records), scratchpad);
  const runningSince = taskRunning ? lastUserInputAt(reading) : undefined;
  return {
    uncertain: view.uncertain.map(({ entry, check }) => uncertainRow(entry, check, runningSince)),
    resolved: view.resolved.flatMap((entry) => {
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
    processes: view.processes.map(processRow),
  };
}

/**
 * Where the session's own journal stands on a call a user wants to decide: absent from it, or
 * started by the running task (which may still finish it), or open to a decision.
 */
export function callStanding(
  reading: TraceReading,
  toolCallId: string,
  taskRunning: boolean,
): "unknown" | "in_progress" | "open" {
  const entry = toolJournal(reading.records).find((candidate) => candidate.toolCallId === toolCallId);
  if (entry === undefined) return "unknown";
  const since = taskRunning ? lastUserInputAt(reading) : undefined;
  return startedSince(entry, since) ? "in_progress" : "open";
}

/** Whether the call was dispatched at or after `since` (the running task's user input). */
function startedSince(entry: JournalEntry, since: string | undefined): boolean {
  return since !== undefined && (entry.dispatchedAt ?? "") >= since;
}

function uncertainRow(entry: JournalEntry, check: StepEvidence, runningSince: string | undefined) {
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
    in_progress: startedSince(entry, runningSince),
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
