import { z } from "zod";
import { FidelitySchema, SenderSchema, StopReasonSchema } from "./common.js";
import { anyString, nonEmptyString, optionalString } from "./fields.js";

// Complete model messages: what the model context is made of, what a trace stores.

const completeBase = {
  stop_reason: StopReasonSchema.optional(),
  fidelity: FidelitySchema.optional(),
};

export const TextPayloadSchema = z.looseObject({
  type: z.literal("text"),
  role: z.enum(["user", "assistant"]),
  text: anyString,
  sender: SenderSchema.optional(),
  ...completeBase,
});
export type TextPayload = z.infer<typeof TextPayloadSchema>;

export const ThinkingPayloadSchema = z.looseObject({
  type: z.literal("thinking"),
  role: z.literal("assistant"),
  thinking: anyString,
  ...completeBase,
});
export type ThinkingPayload = z.infer<typeof ThinkingPayloadSchema>;

export const ToolCallPayloadSchema = z.looseObject({
  type: z.literal("tool_call"),
  role: z.literal("assistant"),
  name: anyString,
  /** The arguments exactly as the model wrote them: a JSON string, possibly malformed. */
  arguments: anyString,
  tool_call_id: nonEmptyString,
  ...completeBase,
});
export type ToolCallPayload = z.infer<typeof ToolCallPayloadSchema>;

export const ToolCallOutputPayloadSchema = z.looseObject({
  type: z.literal("tool_call_output"),
  role: z.literal("user"),
  output: anyString,
  /** Images as data URLs, after the text. */
  images: z.array(anyString).optional(),
  tool_call_id: nonEmptyString,
  ...completeBase,
});
export type ToolCallOutputPayload = z.infer<typeof ToolCallOutputPayloadSchema>;

export const ImageUrlPayloadSchema = z.looseObject({
  type: z.literal("image_url"),
  role: z.literal("user"),
  /** An http(s) URL or a data URL. */
  image_url: anyString,
  ...completeBase,
});
export type ImageUrlPayload = z.infer<typeof ImageUrlPayloadSchema>;

export const InlineDataPayloadSchema = z.looseObject({
  type: z.literal("inline_data"),
  role: z.enum(["user", "assistant"]),
  /** Base64 data. */
  data: anyString,
  mime_type: anyString,
  ...completeBase,
});
export type InlineDataPayload = z.infer<typeof InlineDataPayloadSchema>;

export const CompleteModelPayloadSchema = z.discriminatedUnion("type", [
  TextPayloadSchema,
  ThinkingPayloadSchema,
  ToolCallPayloadSchema,
  ToolCallOutputPayloadSchema,
  ImageUrlPayloadSchema,
  InlineDataPayloadSchema,
]);
export type CompleteModelPayload = z.infer<typeof CompleteModelPayloadSchema>;
export const COMPLETE_MODEL_TYPES = [
  "text",
  "thinking",
  "tool_call",
  "tool_call_output",
  "image_url",
  "inline_data",
] as const;

// Streaming partials: start -> delta* -> stop, then the complete message at once.
// The deltas of one stream concatenate to exactly the complete message's field.

export const PartialEventTypeSchema = z.enum(["start", "delta", "stop"]);
export type PartialEventType = z.infer<typeof PartialEventTypeSchema>;

export const PartialTextPayloadSchema = z.looseObject({
  type: z.literal("partial_text"),
  event_type: PartialEventTypeSchema,
  role: z.enum(["user", "assistant"]).optional(),
  text: anyString,
});
export type PartialTextPayload = z.infer<typeof PartialTextPayloadSchema>;

export const PartialThinkingPayloadSchema = z.looseObject({
  type: z.literal("partial_thinking"),
  event_type: PartialEventTypeSchema,
  thinking: anyString,
});
export type PartialThinkingPayload = z.infer<typeof PartialThinkingPayloadSchema>;

export const PartialToolCallPayloadSchema = z.looseObject({
  type: z.literal("partial_tool_call"),
  event_type: PartialEventTypeSchema,
  tool_call_id: nonEmptyString,
  /** Known from the start event on. */
  name: optionalString,
  /** A fragment of the arguments JSON string. */
  arguments: anyString,
});
export type PartialToolCallPayload = z.infer<typeof PartialToolCallPayloadSchema>;

export const PartialToolCallOutputPayloadSchema = z.looseObject({
  type: z.literal("partial_tool_call_output"),
  event_type: PartialEventTypeSchema,
  tool_call_id: nonEmptyString,
  /** A fragment of the output text. */
  output: anyString,
  /** Images arrive whole, in one delta. */
  images: z.array(anyString).optional(),
});
export type PartialToolCallOutputPayload = z.infer<typeof PartialToolCallOutputPayloadSchema>;

export const PartialPayloadSchema = z.discriminatedUnion("type", [
  PartialTextPayloadSchema,
  PartialThinkingPayloadSchema,
  PartialToolCallPayloadSchema,
  PartialToolCallOutputPayloadSchema,
]);
export type PartialPayload = z.infer<typeof PartialPayloadSchema>;
export const PARTIAL_TYPES = [
  "partial_text",
  "partial_thinking",
  "partial_tool_call",
  "partial_tool_call_output",
] as const;

/** Every model_msg payload: the complete kinds and the streaming partials. */
export const ModelPayloadSchema = z.discriminatedUnion("type", [
  ...CompleteModelPayloadSchema.options,
  ...PartialPayloadSchema.options,
]);
export type ModelPayload = z.infer<typeof ModelPayloadSchema>;
