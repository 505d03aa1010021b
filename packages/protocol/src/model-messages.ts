import { z } from "zod";
import { commonSchemas } from "./common.js";
import { fieldSchemas } from "./fields.js";
import { onFirstUse } from "./on-first-use.js";

export const COMPLETE_MODEL_TYPES = [
  "text",
  "thinking",
  "tool_call",
  "tool_call_output",
  "image_url",
  "inline_data",
] as const;
export const PARTIAL_TYPES = [
  "partial_text",
  "partial_thinking",
  "partial_tool_call",
  "partial_tool_call_output",
] as const;

// Complete model messages: what the model context is made of, what a trace stores.

/** The schemas of this module, built on the first call (on-first-use.ts). */
export const modelMessageSchemas = onFirstUse(() => {
  const { FidelitySchema, SenderSchema, StopReasonSchema } = commonSchemas();
  const { anyString, nonEmptyString, optionalString } = fieldSchemas();

  const completeBase = {
    stop_reason: StopReasonSchema.optional(),
    fidelity: FidelitySchema.optional(),
  };

  const TextPayloadSchema = z.looseObject({
    type: z.literal("text"),
    role: z.enum(["user", "assistant"]),
    text: anyString,
    sender: SenderSchema.optional(),
    ...completeBase,
  });

  const ThinkingPayloadSchema = z.looseObject({
    type: z.literal("thinking"),
    role: z.literal("assistant"),
    thinking: anyString,
    ...completeBase,
  });

  const ToolCallPayloadSchema = z.looseObject({
    type: z.literal("tool_call"),
    role: z.literal("assistant"),
    name: anyString,
    /** The arguments exactly as the model wrote them: a JSON string, possibly malformed. */
    arguments: anyString,
    tool_call_id: nonEmptyString,
    ...completeBase,
  });

  const ToolCallOutputPayloadSchema = z.looseObject({
    type: z.literal("tool_call_output"),
    role: z.literal("user"),
    output: anyString,
    /** Images as data URLs, after the text. */
    images: z.array(anyString).optional(),
    tool_call_id: nonEmptyString,
    ...completeBase,
  });

  const ImageUrlPayloadSchema = z.looseObject({
    type: z.literal("image_url"),
    role: z.literal("user"),
    /** An http(s) URL or a data URL. */
    image_url: anyString,
    ...completeBase,
  });

  const InlineDataPayloadSchema = z.looseObject({
    type: z.literal("inline_data"),
    role: z.enum(["user", "assistant"]),
    /** Base64 data. */
    data: anyString,
    mime_type: anyString,
    ...completeBase,
  });

  const CompleteModelPayloadSchema = z.discriminatedUnion("type", [
    TextPayloadSchema,
    ThinkingPayloadSchema,
    ToolCallPayloadSchema,
    ToolCallOutputPayloadSchema,
    ImageUrlPayloadSchema,
    InlineDataPayloadSchema,
  ]);

  // Streaming partials: start -> delta* -> stop, then the complete message at once.
  // The deltas of one stream concatenate to exactly the complete message's field.

  const PartialEventTypeSchema = z.enum(["start", "delta", "stop"]);

  const PartialTextPayloadSchema = z.looseObject({
    type: z.literal("partial_text"),
    event_type: PartialEventTypeSchema,
    role: z.enum(["user", "assistant"]).optional(),
    text: anyString,
  });

  const PartialThinkingPayloadSchema = z.looseObject({
    type: z.literal("partial_thinking"),
    event_type: PartialEventTypeSchema,
    thinking: anyString,
  });

  const PartialToolCallPayloadSchema = z.looseObject({
    type: z.literal("partial_tool_call"),
    event_type: PartialEventTypeSchema,
    tool_call_id: nonEmptyString,
    /** Known from the start event on. */
    name: optionalString,
    /** A fragment of the arguments JSON string. */
    arguments: anyString,
  });

  const PartialToolCallOutputPayloadSchema = z.looseObject({
    type: z.literal("partial_tool_call_output"),
    event_type: PartialEventTypeSchema,
    tool_call_id: nonEmptyString,
    /** A fragment of the output text. */
    output: anyString,
    /** Images arrive whole, in one delta. */
    images: z.array(anyString).optional(),
  });

  const PartialPayloadSchema = z.discriminatedUnion("type", [
    PartialTextPayloadSchema,
    PartialThinkingPayloadSchema,
    PartialToolCallPayloadSchema,
    PartialToolCallOutputPayloadSchema,
  ]);

  /** Every model_msg payload: the complete kinds and the streaming partials. */
  const ModelPayloadSchema = z.discriminatedUnion("type", [
    ...CompleteModelPayloadSchema.options,
    ...PartialPayloadSchema.options,
  ]);
  return {
    TextPayloadSchema,
    ThinkingPayloadSchema,
    ToolCallPayloadSchema,
    ToolCallOutputPayloadSchema,
    ImageUrlPayloadSchema,
    InlineDataPayloadSchema,
    CompleteModelPayloadSchema,
    PartialEventTypeSchema,
    PartialTextPayloadSchema,
    PartialThinkingPayloadSchema,
    PartialToolCallPayloadSchema,
    PartialToolCallOutputPayloadSchema,
    PartialPayloadSchema,
    ModelPayloadSchema,
  };
});
type Schemas = ReturnType<typeof modelMessageSchemas>;
export type TextPayload = z.infer<Schemas["TextPayloadSchema"]>;
export type ThinkingPayload = z.infer<Schemas["ThinkingPayloadSchema"]>;
export type ToolCallPayload = z.infer<Schemas["ToolCallPayloadSchema"]>;
export type ToolCallOutputPayload = z.infer<Schemas["ToolCallOutputPayloadSchema"]>;
export type ImageUrlPayload = z.infer<Schemas["ImageUrlPayloadSchema"]>;
export type InlineDataPayload = z.infer<Schemas["InlineDataPayloadSchema"]>;
export type CompleteModelPayload = z.infer<Schemas["CompleteModelPayloadSchema"]>;
export type PartialEventType = z.infer<Schemas["PartialEventTypeSchema"]>;
export type PartialTextPayload = z.infer<Schemas["PartialTextPayloadSchema"]>;
export type PartialThinkingPayload = z.infer<Schemas["PartialThinkingPayloadSchema"]>;
export type PartialToolCallPayload = z.infer<Schemas["PartialToolCallPayloadSchema"]>;
export type PartialToolCallOutputPayload = z.infer<Schemas["PartialToolCallOutputPayloadSchema"]>;
export type PartialPayload = z.infer<Schemas["PartialPayloadSchema"]>;
export type ModelPayload = z.infer<Schemas["ModelPayloadSchema"]>;
