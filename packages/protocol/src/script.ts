import { z } from "zod";
import { fieldSchemas } from "./fields.js";
import { onFirstUse } from "./on-first-use.js";

/** The schemas of this module, built on the first call (on-first-use.ts). */
export const scriptSchemas = onFirstUse(() => {
  const {
    anyString,
    anyValue,
    nonEmptyString,
    nonNegativeIntOrZero,
    optionalNonEmptyString,
    optionalNonNegativeInt,
    optionalNonNegativeNumber,
    optionalPositiveInt,
    optionalString,
  } = fieldSchemas();

  /**
   * Scripted model turns. One format serves two jobs: the script that `tooling/fake-llm` plays
   * over a provider's real wire protocol, and the cassette that the `replay` model plays inside
   * the harness (no HTTP). Each model request consumes the next turn, in order.
   *
   * A turn is either a normal answer (any of `thinking`, `text`, `tool_calls`, in that order on
   * the wire) or a failure (`error`, `stall`, `cut`, `malformed`). A failure may follow some
   * normal content: e.g. `text` plus `cut: {after_chunks: 3}` streams three chunks of the answer
   * and then drops the connection.
   */

  const ScriptToolCallSchema = z.object({
    /** Call id; generated (`call_<turn>_<n>`) when omitted. */
    id: optionalNonEmptyString,
    name: nonEmptyString,
    /** Arguments as a JSON string (sent verbatim, so malformed JSON can be scripted) or an object. */
    arguments: z.union([anyString, z.record(anyString, anyValue)]).default({}),
  });

  const ScriptUsageSchema = z.object({
    input_tokens: nonNegativeIntOrZero,
    output_tokens: nonNegativeIntOrZero,
    cache_read_tokens: nonNegativeIntOrZero,
    cache_write_tokens: nonNegativeIntOrZero,
  });

  const ScriptErrorSchema = z.object({
    /** HTTP status the server answers with (401, 429, 500, ...). */
    status: z.number().int().min(400).max(599),
    message: optionalString,
    /** Seconds, sent as the `retry-after` header. */
    retry_after: optionalNonNegativeNumber,
  });

  const ScriptTurnSchema = z
    .object({
      /** Free-form label, shown in diagnostics only. */
      label: optionalString,
      thinking: optionalString,
      /** Opaque signature for the thinking block (Anthropic), replayed byte for byte. */
      thinking_signature: optionalString,
      text: optionalString,
      tool_calls: z.array(ScriptToolCallSchema).optional(),
      /** Usage reported at the end of the stream; estimated from the text when omitted. */
      usage: ScriptUsageSchema.optional(),
      /** Characters per streamed delta (default 16). */
      chunk_size: optionalPositiveInt,
      /** Delay between streamed chunks, in milliseconds (default 0). */
      chunk_delay_ms: optionalNonNegativeInt,
      /** Answer with an HTTP error instead of a stream. */
      error: ScriptErrorSchema.optional(),
      /** Stop sending (keep the connection open) after this many chunks. */
      stall: z.object({ after_chunks: nonNegativeIntOrZero }).optional(),
      /** Destroy the connection mid-event after this many chunks. */
      cut: z.object({ after_chunks: nonNegativeIntOrZero }).optional(),
      /** Send a chunk whose JSON is malformed after this many chunks, then end the stream. */
      malformed: z.object({ after_chunks: nonNegativeIntOrZero }).optional(),
    })
    .refine(
      (t) =>
        t.error !== undefined ||
        t.stall !== undefined ||
        t.cut !== undefined ||
        t.malformed !== undefined ||
        t.text !== undefined ||
        t.thinking !== undefined ||
        (t.tool_calls?.length ?? 0) > 0,
      { message: "a turn needs text, thinking, tool_calls, or a failure (error, stall, cut, malformed)" },
    );

  const ModelScriptSchema = z.object({
    /** Format version of the script/cassette file. */
    version: z.literal(1).default(1),
    /** What the script is for; shown in diagnostics. */
    description: optionalString,
    turns: z.array(ScriptTurnSchema),
  });
  return { ScriptToolCallSchema, ScriptUsageSchema, ScriptTurnSchema, ModelScriptSchema };
});
type Schemas = ReturnType<typeof scriptSchemas>;
export type ScriptToolCall = z.infer<Schemas["ScriptToolCallSchema"]>;
export type ScriptUsage = z.infer<Schemas["ScriptUsageSchema"]>;
export type ScriptTurn = z.infer<Schemas["ScriptTurnSchema"]>;
export type ModelScript = z.infer<Schemas["ModelScriptSchema"]>;
