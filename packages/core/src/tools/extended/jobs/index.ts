import { defaultToolLimits, type ToolLimits } from "@penguin/state";
import type { ToolFactory } from "../../../environment/types.js";
import { createListJobsTool } from "./list-jobs.js";
import { createReadJobOutputTool } from "./read-job-output.js";
import { createRunCommandTool } from "./run-command.js";
import { createSignalJobTool } from "./signal-job.js";
import { createWaitJobTool } from "./wait-job.js";

// The job tools ("Running commands"), made with an agent's `tools.limits`. The cap on jobs and
// their buffer size (`tools.limits.jobs`) belong to the session's process manager, shared with
// exec_command; the session builds that manager with them.

export function jobToolFactories(limits: ToolLimits = defaultToolLimits()): Record<string, ToolFactory> {
  return {
    run_command: (definition) => createRunCommandTool(definition, limits.run_command),
    list_jobs: (definition) => createListJobsTool(definition, limits.list_jobs),
    read_job_output: (definition) => createReadJobOutputTool(definition, limits.read_job_output),
    wait_job: (definition) => createWaitJobTool(definition, limits.wait_job),
    signal_job: (definition) => createSignalJobTool(definition, limits.signal_job),
  };
}

export { compilePattern, LineMatcher } from "./line-matcher.js";
export { createListJobsTool } from "./list-jobs.js";
export { createReadJobOutputTool } from "./read-job-output.js";
export { createRunCommandTool } from "./run-command.js";
export { createSignalJobTool } from "./signal-job.js";
export { createWaitJobTool } from "./wait-job.js";
