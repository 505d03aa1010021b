/**
 * The numbers of the subagent contract, each with the sentence it implements
 * (spec/tools-and-approval.md, "Subagents" and "Background session caps").
 */

/** "Subagent sessions: 8. Only completed ones are evicted; running subagents never". */
export const MAX_SUBAGENT_SESSIONS = 8;

// The yield defaults are the numbers the tools' descriptions state, defined once with the
// definitions (@penguin/state, tools/subagent.ts).
export {
  DEFAULT_FOLLOW_UP_YIELD_MS,
  DEFAULT_RUN_YIELD_MS,
  DEFAULT_SUBAGENT_POLL_YIELD_MS as DEFAULT_POLL_YIELD_MS,
} from "@penguin/state";

/** A window may be zero: the call returns what is there now. */
export const MIN_SUBAGENT_YIELD_MS = 0;

/** Subagent ids handed to the model: `sub_1`, `sub_2`, … (never reused within a parent session). */
export const SUBAGENT_ID_PREFIX = "sub_";

/**
 * Complete messages a background child produced while no call was following it, kept so the next
 * poll can stream them into the parent (oldest dropped first). Partials are not kept: a UI cannot
 * rebuild a stream it joins in the middle, and the complete message follows every stream anyway.
 */
export const MAX_DETACHED_BACKLOG_MESSAGES = 200;
