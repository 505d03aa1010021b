import { onFirstUse } from "@penguin/protocol";
import { z } from "zod";

// `child_agents` and `notices` in system_config.yaml: the caps of agents that launch agents and
// the delivery of notices to event handlers (issue "Agents that work together"). Each default
// quotes the rule it implements; core's agent runtime and notice queue read them from here.

/** "Children may launch children (depth … caps, configurable)": levels below the root agent. */
export const DEFAULT_CHILD_AGENT_MAX_DEPTH = 5;
/** "… and concurrency caps": children of one session running at once, started by launch_agent. */
export const DEFAULT_CHILD_AGENT_MAX_RUNNING = 4;
/**
 * Child sessions kept per session, run_subagent's and launch_agent's together ("one runtime, one
 * id space, one cap"): "Subagent sessions: 8 — only completed ones are evicted".
 */
export const DEFAULT_CHILD_AGENT_MAX_SESSIONS = 8;
/** "`wake` starts a turn when the session is idle, capped per hour (configurable)". */
export const DEFAULT_NOTICE_WAKES_PER_HOUR = 60;
/** "Pending notices are bounded (256, oldest dropped and counted)". */
export const DEFAULT_MAX_PENDING_NOTICES = 256;

/** The schemas of `child_agents` and `notices`, built on the first call (configuration is checked only when read). */
export const teamSchemas = onFirstUse(() => {
  const positiveInt = z.number().int().positive();

  /** `child_agents` in system_config.yaml. */
  const ChildAgentsSettingsSchema = z.strictObject({
    max_depth: positiveInt.default(DEFAULT_CHILD_AGENT_MAX_DEPTH),
    max_running: positiveInt.default(DEFAULT_CHILD_AGENT_MAX_RUNNING),
    max_sessions: positiveInt.default(DEFAULT_CHILD_AGENT_MAX_SESSIONS),
  });

  /** `notices` in system_config.yaml. */
  const NoticesSettingsSchema = z.strictObject({
    wakes_per_hour: z.number().int().nonnegative().default(DEFAULT_NOTICE_WAKES_PER_HOUR),
    max_pending: positiveInt.default(DEFAULT_MAX_PENDING_NOTICES),
  });
  return { ChildAgentsSettingsSchema, NoticesSettingsSchema };
});
type Schemas = ReturnType<typeof teamSchemas>;
export type ChildAgentsSettings = z.output<Schemas["ChildAgentsSettingsSchema"]>;
export type NoticesSettings = z.output<Schemas["NoticesSettingsSchema"]>;
