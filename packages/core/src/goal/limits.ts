// The numbers of goal mode, each with the rule it implements.

/** "A hard cap of rounds (100)": a goal never takes more model requests than this, its wrap-up included. */
export const MAX_GOAL_ROUNDS = 100;

/**
 * "A goal file in the session's scratchpad (`<scratchpad>/<sessionId>/GOAL.yaml`)": the name of
 * the file that holds the objective and the status the model sets.
 */
export const GOAL_FILE_NAME = "GOAL.yaml";

/**
 * The rule for `blocked` the model is given: the same blocker for this many rounds in a row, so
 * one failed attempt does not end a goal that another approach would reach.
 */
export const ROUNDS_BEFORE_BLOCKED = 3;
