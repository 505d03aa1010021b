// search_executions, read_execution and resume_execution: retained work of a session's agents.
import type { ToolFactory } from "../../environment/types.js";
import { createReadExecutionTool } from "./read-execution.js";
import { createResumeExecutionTool } from "./resume-execution.js";
import { createSearchExecutionsTool } from "./search-executions.js";
import type { ExecutionSource } from "./source.js";

export { childRelauncher } from "./relaunch.js";
export {
  type ChildRelauncher,
  type ExecutionRead,
  type ExecutionSource,
  findExecutions,
  readExecutionPart,
} from "./source.js";

/** The execution tools of one agent of a session (none: they fail, saying there is no trace). */
export function executionToolFactories(source: ExecutionSource | undefined): Record<string, ToolFactory> {
  return {
    search_executions: (definition) => createSearchExecutionsTool(definition, source),
    read_execution: (definition) => createReadExecutionTool(definition, source),
    resume_execution: (definition) => createResumeExecutionTool(definition, source),
  };
}
