import type { JournalEntry } from "@penguin/trace";
import { toolJournal } from "@penguin/trace";
import { z } from "zod";
import type { TraceReading } from "./trace-reads.js";

// What a crash may have left half done, for `GET /api/sessions/:id/recovery`: the session's tool
// calls that started and have no result and no decision (uncertain), and the decisions taken on
// such calls. Read from the trace's journal, the same reader `penguin sessions show` uses.

const FileEffectRowSchema = z.object({
  path: z.string(),
  before_sha256: z.string().nullable().describe("SHA-256 before the call; null: the file did not exist"),
  after_sha256: z
    .string()
    .nullable()
    .describe("SHA-256 the call was writing; null: it was removing the file"),
});

export const UncertainStepSchema = z.object({
  tool_call_id: z.string(),
  name: z.string().describe("The tool"),
  arguments: z.string().describe("The call's arguments as the model wrote them (JSON text)"),
  dispatched_at: z.string().optional().describe("When the tool started (ISO 8601)"),
  files: z.array(FileEffectRowSchema).describe("The files it was about to change"),
  process_id: z.string().optional().describe("The command session or job it started"),
  in_progress: z
    .boolean()
    .describe("The session's task is running and the call may simply not have finished yet"),
});

export const ResolvedStepSchema = z.object({
  tool_call_id: z.string(),
  name: z.string(),
  decision: z.enum(["retry", "accept"]),
  evidence: z.string(),
  by: z.enum(["agent", "user", "penguin"]),
  verified: z.string().optional(),
  at: z.string(),
});

export const RecoveryResponseSchema = z.object({
  uncertain: z
    .array(UncertainStepSchema)
    .describe("Calls started without a result and not resolved, in call order"),
  resolved: z.array(ResolvedStepSchema).describe("Decisions taken on calls that were uncertain"),
});
export type RecoveryResponse = z.infer<typeof RecoveryResponseSchema>;

/**
 * The recovery view of a trace. `taskRunning`: a task of the session runs now, so the calls it
 * dispatched (after its user input, the last one in the trace) may simply not have finished yet.
 */
export function recoveryOf(reading: TraceReading, taskRunning: boolean): RecoveryResponse {
  const journal = toolJournal(reading.records);
  const runningSince = taskRunning ? lastUserInputAt(reading) : undefined;
  return {
    uncertain: journal.filter((entry) => entry.uncertain).map((entry) => uncertainRow(entry, runningSince)),
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
  };
}

function uncertainRow(entry: JournalEntry, runningSince: string | undefined) {
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
