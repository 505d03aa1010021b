import { z } from "zod";
import { EventPayloadSchema } from "./events.js";
import { nonEmptyString } from "./fields.js";
import { type ModelPayload, ModelPayloadSchema } from "./model-messages.js";
import { type SessionMetaPayload, SessionMetaPayloadSchema } from "./session-meta.js";

/**
 * Child session ids, outer to inner, for messages a subagent produced; absent for the main
 * session's own messages.
 */
const origin = z.array(nonEmptyString).optional();
/** ISO 8601 UTC. */
const timestamp = nonEmptyString;

// Envelopes, like payloads, keep fields they do not know: a reader of an older version passes a
// newer writer's additions through instead of dropping them.

export const SessionMetaEnvelopeSchema = z.looseObject({
  timestamp,
  type: z.literal("session_meta"),
  payload: SessionMetaPayloadSchema,
  origin,
});
export const ModelMsgEnvelopeSchema = z.looseObject({
  timestamp,
  type: z.literal("model_msg"),
  payload: ModelPayloadSchema,
  origin,
});
export const EventMsgEnvelopeSchema = z.looseObject({
  timestamp,
  type: z.literal("event_msg"),
  payload: EventPayloadSchema,
  origin,
});

/** The one message format: what the SDK yields, what a trace line stores, what SSE carries. */
export const OmniMessageSchema = z.discriminatedUnion("type", [
  SessionMetaEnvelopeSchema,
  ModelMsgEnvelopeSchema,
  EventMsgEnvelopeSchema,
]);

export type SessionMetaEnvelope = z.infer<typeof SessionMetaEnvelopeSchema>;
export type ModelMsgEnvelope = z.infer<typeof ModelMsgEnvelopeSchema>;
export type EventMsgEnvelope = z.infer<typeof EventMsgEnvelopeSchema>;
export type AnyOmniMessage = z.infer<typeof OmniMessageSchema>;

type AnyPayload = AnyOmniMessage["payload"];
type EnvelopeOf<P> = {
  timestamp: string;
  type: P extends SessionMetaPayload ? "session_meta" : P extends ModelPayload ? "model_msg" : "event_msg";
  payload: P;
  origin?: string[];
};

/**
 * An envelope, optionally narrowed to one payload: `OmniMessage<ToolCallPayload>` is a
 * model_msg carrying a tool call; plain `OmniMessage` is any envelope.
 */
export type OmniMessage<P extends AnyPayload = AnyPayload> = P extends unknown ? EnvelopeOf<P> : never;
