import { z } from "zod";
import { SessionIdSchema } from "../http/ids.js";

// The shapes of `GET /api/sessions/:id/recovery` and `POST .../recovery/:toolCallId/resolve`
// (they feed the OpenAPI document).

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
  evidence: z
    .string()
    .describe(
      "Penguin's own check, one line: each file's hash now against the hashes journaled before the change (applied / not applied / changed since), the command's or job's state",
    ),
  suggestion: z
    .enum(["accept", "retry"])
    .optional()
    .describe("The decision Penguin's check points to; absent when a person must look"),
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

const ProcessExitSchema = z.union([
  z.object({ kind: z.literal("code"), code: z.number().int() }),
  z.object({ kind: z.literal("signal"), signal: z.string() }),
  z.object({ kind: z.literal("spawn-error"), message: z.string() }),
]);

export const RetainedProcessSchema = z.object({
  id: z.string(),
  origin: z.enum(["exec_command", "run_command"]),
  command: z.string(),
  state: z
    .enum(["running", "exited", "interrupted", "reused-pid"])
    .describe(
      "running: the recorded process still runs. exited: it ended while Penguin watched. interrupted: it ended while Penguin was not running (exit unknown). reused-pid: its pid now belongs to another program, never signalled",
    ),
  pid: z.number().int().optional(),
  exit: ProcessExitSchema.optional().describe("How it ended, when that is known"),
  started_at: z.string().describe("ISO 8601"),
  ended_at: z.string().optional().describe("ISO 8601"),
  output_bytes: z.number().int().describe("Bytes of output kept in its spool (0: none kept)"),
});

export const RecoveryResponseSchema = z.object({
  uncertain: z
    .array(UncertainStepSchema)
    .describe("Calls started without a result and not resolved, in call order"),
  resolved: z.array(ResolvedStepSchema).describe("Decisions taken on calls that were uncertain"),
  processes: z
    .array(RetainedProcessSchema)
    .describe("The commands and jobs in the session's process registry, oldest first, with their state now"),
});
export type RecoveryResponse = z.infer<typeof RecoveryResponseSchema>;

/** The most a person's evidence may hold (characters). */
export const MAX_RESOLVE_EVIDENCE_CHARS = 4096;

export const ResolveRequestSchema = z
  .object({
    decision: z.enum(["retry", "accept"]).describe("accept: the call happened. retry: it must be redone"),
    evidence: z
      .string()
      .trim()
      .min(1)
      .max(MAX_RESOLVE_EVIDENCE_CHARS)
      .describe("What the person checked (the files, the command's output)"),
    session_id: SessionIdSchema.optional().describe(
      "A child agent's session whose trace holds the call; absent: this session",
    ),
  })
  .strict();

export const ResolveResponseSchema = z.object({
  tool_call_id: z.string(),
  name: z.string(),
  decision: z.enum(["retry", "accept"]),
  evidence: z.string(),
  by: z.literal("user"),
  verified: z.string().optional().describe("What Penguin checked itself when the decision was recorded"),
  session_id: z.string().optional(),
});
