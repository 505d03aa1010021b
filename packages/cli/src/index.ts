// @penguin/cli: the `penguin` binary. Its programmatic surface is small on purpose: embed
// `@penguin/core` for anything beyond running the CLI itself.

export { EXIT_COMPLETED, EXIT_TASK_FAILED, EXIT_USAGE } from "./exit-codes.js";
export { main } from "./main.js";
