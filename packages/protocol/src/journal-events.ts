import { z } from "zod";
import { fieldSchemas } from "./fields.js";
import { onFirstUse } from "./on-first-use.js";

// The journal of tool calls ("Work that survives a crash"). Each tool call leaves, in the trace of
// the agent that made it, one durable record per step:
//   intent      the complete `tool_call` (model-messages.ts), recorded as soon as it streamed in;
//   decision    its `approval_decision`;
//   dispatched  `tool_dispatched`, recorded before the tool starts;
//   effect      `tool_effect`, recorded by a tool that changes files or starts a process, before
//               it does (the evidence a resume checks);
//   result      its `tool_call_output`.
// A call dispatched without a result is **uncertain**: it may have had effects. `activity_resolved`
// records the decision taken on it (`retry` or `accept`) and the evidence behind it.

/** The schemas of this module, built on the first call (on-first-use.ts). */
export const journalEventSchemas = onFirstUse(() => {
  const { nonEmptyString, optionalNonEmptyString, optionalString } = fieldSchemas();

  /** The Environment starts the tool (approved, arguments valid, its locks held). */
  const ToolDispatchedPayloadSchema = z.looseObject({
    type: z.literal("tool_dispatched"),
    tool_call_id: nonEmptyString,
    name: nonEmptyString,
    /** Whether the tool only reads: an unfinished read-only call is re-run, never uncertain. */
    read_only: z.boolean().optional(),
  });

  /** SHA-256 of a file's bytes (lowercase hex); `null`: the file does not exist. */
  const fileHash = z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .nullable();

  /** One file a call is about to change: its hash now and the hash it will have once changed. */
  const FileEffectSchema = z.looseObject({
    /** Absolute path. */
    path: nonEmptyString,
    before_sha256: fileHash,
    /** `null`: the call deletes the file. */
    after_sha256: fileHash,
  });

  /**
   * What a call is about to do, recorded before it does it: the files it changes (with their
   * hashes before and after), or the job it starts (its id in the session's process registry).
   */
  const ToolEffectPayloadSchema = z.looseObject({
    type: z.literal("tool_effect"),
    tool_call_id: nonEmptyString,
    files: z.array(FileEffectSchema).optional(),
    /** The command session or job the call started (exec_command session id / run_command job id). */
    process_id: optionalNonEmptyString,
  });

  /**
   * A decision on an uncertain call: `retry` (its effect did not happen, or must be redone) or
   * `accept` (its effect happened; go on from it). `evidence` says what was checked.
   */
  const ActivityResolvedPayloadSchema = z.looseObject({
    type: z.literal("activity_resolved"),
    tool_call_id: nonEmptyString,
    /** The session whose trace holds the call (a child agent's); absent: this trace. */
    session_id: optionalNonEmptyString,
    decision: z.enum(["retry", "accept"]),
    evidence: nonEmptyString,
    /** Who decided: the model through resolve_execution_activity, the user, or Penguin itself. */
    by: z.enum(["agent", "user", "penguin"]),
    /** What Penguin verified itself (a file's current hash, a job's exit state), when it could. */
    verified: optionalString,
  });
  return {
    ToolDispatchedPayloadSchema,
    FileEffectSchema,
    ToolEffectPayloadSchema,
    ActivityResolvedPayloadSchema,
  };
});
type Schemas = ReturnType<typeof journalEventSchemas>;
export type ToolDispatchedPayload = z.infer<Schemas["ToolDispatchedPayloadSchema"]>;
export type FileEffect = z.infer<Schemas["FileEffectSchema"]>;
export type ToolEffectPayload = z.infer<Schemas["ToolEffectPayloadSchema"]>;
export type ActivityResolvedPayload = z.infer<Schemas["ActivityResolvedPayloadSchema"]>;
