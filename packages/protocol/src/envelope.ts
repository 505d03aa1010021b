import { z } from "zod";
import { eventSchemas } from "./events.js";
import { fieldSchemas } from "./fields.js";
import type { ModelPayload } from "./model-messages.js";
import { modelMessageSchemas } from "./model-messages.js";
import { onFirstUse } from "./on-first-use.js";
import type { SessionMetaPayload } from "./session-meta.js";
import { sessionMetaSchemas } from "./session-meta.js";

/** The schemas of this module, built on the first call (on-first-use.ts). */
export const envelopeSchemas = onFirstUse(() => {
  const { EventPayloadSchema } = eventSchemas();
  const { nonEmptyString } = fieldSchemas();
  const { ModelPayloadSchema } = modelMessageSchemas();
  const { SessionMetaPayloadSchema } = sessionMetaSchemas();

  /**
   * Child session ids, outer to inner, for messages a subagent produced; absent for the main
   * session's own messages.
   */
  const origin = z.array(nonEmptyString).optional();
  /** ISO 8601 UTC. */
  const timestamp = nonEmptyString;

  // Envelopes, like payloads, keep fields they do not know: a reader of an older version passes a
  // newer writer's additions through instead of dropping them.

  const SessionMetaEnvelopeSchema = z.looseObject({
    timestamp,
    type: z.literal("session_meta"),
    payload: SessionMetaPayloadSchema,
    origin,
  });
  const ModelMsgEnvelopeSchema = z.looseObject({
    timestamp,
    type: z.literal("model_msg"),
    payload: ModelPayloadSchema,
    origin,
  });
  const EventMsgEnvelopeSchema = z.looseObject({
    timestamp,
    type: z.literal("event_msg"),
    payload: EventPayloadSchema,
    origin,
  });

  /** The one message format: what the SDK yields, what a trace line stores, what SSE carries. */
  const OmniMessageSchema = z.discriminatedUnion("type", [
    SessionMetaEnvelopeSchema,
    ModelMsgEnvelopeSchema,
    EventMsgEnvelopeSchema,
  ]);
  return { SessionMetaEnvelopeSchema, ModelMsgEnvelopeSchema, EventMsgEnvelopeSchema, OmniMessageSchema };
});
type Schemas = ReturnType<typeof envelopeSchemas>;
export type SessionMetaEnvelope = z.infer<Schemas["SessionMetaEnvelopeSchema"]>;
export type ModelMsgEnvelope = z.infer<Schemas["ModelMsgEnvelopeSchema"]>;
export type EventMsgEnvelope = z.infer<Schemas["EventMsgEnvelopeSchema"]>;
export type AnyOmniMessage = z.infer<Schemas["OmniMessageSchema"]>;

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
