import type { ToolDefinitionConfig } from "./definition-parts.js";
import { objectSchema } from "./definition-parts.js";

// resolve_execution_activity: "Records a decision on an uncertain step, retry or accept, with
// evidence of what the agent checked." An uncertain step is a tool call that started and has no
// result because the session stopped (a crash, a kill); core's tools/journal/ implements it.

export const RESOLVE_EXECUTION_ACTIVITY_TOOL_NAME = "resolve_execution_activity";

export const RESOLVE_EXECUTION_ACTIVITY_DEFINITION: ToolDefinitionConfig = {
  name: RESOLVE_EXECUTION_ACTIVITY_TOOL_NAME,
  description:
    "Record your decision on an uncertain step: a tool call that started but has no result because the session stopped. First check the workspace (read the files it was changing, look at what it ran), then decide: accept (its effect happened; go on from it) or retry (it did not happen, or must be redone: run it again yourself after this). evidence says what you checked. Penguin adds its own check of the files' hashes.",
  parameters: objectSchema(
    {
      tool_call_id: { type: "string", minLength: 1, description: "The uncertain call's id." },
      decision: { type: "string", enum: ["retry", "accept"], description: "What to do with it." },
      evidence: {
        type: "string",
        minLength: 1,
        description: "What you checked and found, in a sentence or two.",
      },
      session_id: {
        type: "string",
        minLength: 1,
        description: "A child agent's session whose trace holds the call; omit for this session.",
      },
    },
    ["tool_call_id", "decision", "evidence"],
  ),
  // It changes no file, but it records a decision the session goes on from.
  permission: "rw",
  timeoutMs: 30_000,
  maxOutputLength: 4_000,
};

export const JOURNAL_TOOL_DEFINITIONS: readonly ToolDefinitionConfig[] = [
  RESOLVE_EXECUTION_ACTIVITY_DEFINITION,
];
