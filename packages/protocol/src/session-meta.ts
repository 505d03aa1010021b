import { z } from "zod";

/** The first record of every trace: how the session was set up, fixed for its lifetime. */
export const SessionMetaPayloadSchema = z.looseObject({
  /** Absent in traces written before versioning; read as version 1. */
  protocol_version: z.number().int().positive().default(1),
  session_id: z.string().min(1),
  provider: z.string(),
  model_id: z.string(),
  model_context_window: z.number().int().positive().optional(),
  /** The fully expanded system prompt, reused byte for byte on resume. */
  system_prompt: z.string(),
  workspace: z.string(),
  /** The agent whose system_config.yaml configured the session. */
  agent_id: z.string().optional(),
  agent_state: z.string().optional(),
  /** Set for a child session. */
  source: z.enum(["subagent", "schedule"]).optional(),
  parent_session_id: z.string().optional(),
  /** Where the session's tools run (`native`, `sandbox`, or a configured profile); absent: native. */
  execution_profile: z.string().optional(),
});
export type SessionMetaPayload = z.infer<typeof SessionMetaPayloadSchema>;
