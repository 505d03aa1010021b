import { z } from "zod";
import { fieldSchemas } from "./fields.js";
import { onFirstUse } from "./on-first-use.js";

/** The schemas of this module, built on the first call (on-first-use.ts). */
export const sessionMetaSchemas = onFirstUse(() => {
  const { anyString, nonEmptyString, optionalPositiveInt, optionalString } = fieldSchemas();

  /** The first record of every trace: how the session was set up, fixed for its lifetime. */
  const SessionMetaPayloadSchema = z.looseObject({
    /** Absent in traces written before versioning; read as version 1. */
    protocol_version: z.number().int().positive().default(1),
    session_id: nonEmptyString,
    provider: anyString,
    model_id: anyString,
    model_context_window: optionalPositiveInt,
    /** The fully expanded system prompt, reused byte for byte on resume. */
    system_prompt: anyString,
    workspace: anyString,
    /** The agent whose system_config.yaml configured the session. */
    agent_id: optionalString,
    agent_state: optionalString,
    /** Set for a child session. */
    source: z.enum(["subagent", "schedule"]).optional(),
    parent_session_id: optionalString,
    /** Where the session's tools run (`native`, `sandbox`, or a configured profile); absent: native. */
    execution_profile: optionalString,
  });
  return { SessionMetaPayloadSchema };
});
type Schemas = ReturnType<typeof sessionMetaSchemas>;
export type SessionMetaPayload = z.infer<Schemas["SessionMetaPayloadSchema"]>;
