export { GOAL_TAG } from "./goal-block.js";
export { type GoalStatus, readGoalStatus } from "./goal-file.js";
export { checkGoalOptions, type GoalOptions, GoalRun } from "./goal-run.js";
export { GOAL_FILE_NAME, MAX_GOAL_ROUNDS, ROUNDS_BEFORE_BLOCKED } from "./limits.js";
