import { z } from "zod";
import { anyString, nonEmptyString, optionalPositiveInt, optionalString } from "./fields.js";

/** The first record of every trace: how the session was set up, fixed for its lifetime. */
export const SessionMetaPayloadSchema = z.looseObject({
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
export type SessionMetaPayload = z.infer<typeof SessionMetaPayloadSchema>;
