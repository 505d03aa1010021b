import type { ToolDefinitionConfig } from "@penguin/state";
import type { BuiltinTool } from "../../environment/types.js";
import { answer, fail } from "../call-text.js";
import { executeWithArguments, optionalStringArg, stringArg } from "../files/file-tool-support.js";
import { type JournalAccess, resolveActivity } from "./resolve.js";

// resolve_execution_activity {tool_call_id, decision, evidence, session_id?}: the agent's decision
// on an uncertain call, recorded as `activity_resolved` by "agent" with Penguin's own check.

export function createResolveExecutionActivityTool(
  definition: ToolDefinitionConfig,
  access: JournalAccess | undefined,
): BuiltinTool {
  const execute = executeWithArguments(
    {
      toolCallId: stringArg("tool_call_id"),
      decision: stringArg("decision"),
      evidence: stringArg("evidence"),
      sessionId: optionalStringArg("session_id"),
    },
    async function* ({ toolCallId, decision, evidence, sessionId }, ctx) {
      if (!access) return yield* fail(ctx, "this session keeps no trace, so it has no uncertain steps.");
      const outcome = await resolveActivity(access, {
        toolCallId,
        decision,
        evidence,
        ...(sessionId !== undefined ? { sessionId } : {}),
        by: "agent",
      });
      if (!outcome.ok) return yield* fail(ctx, outcome.message);
      const { entry, resolution, check } = outcome;
      const lines = [`Recorded: ${resolution.decision} for ${entry.name} (${entry.toolCallId}).`];
      lines.push(`Penguin's check: ${check.summary}.`);
      if (check.suggestion !== undefined && check.suggestion !== resolution.decision) {
        lines.push(`Note: Penguin's check points to ${check.suggestion}, not ${resolution.decision}.`);
      }
      if (resolution.decision === "retry")
        lines.push("Nothing re-runs it: call the tool again yourself if it is still needed.");
      return yield* answer(ctx, lines.join("\n"));
    },
  );
  return { name: definition.name, definition, execute };
}
