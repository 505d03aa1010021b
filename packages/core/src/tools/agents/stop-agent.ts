import { agentStopped, type OmniMessage } from "@penguin/protocol";
import type { ToolDefinitionConfig } from "@penguin/state";
import type { BuiltinTool, ToolExecutionContext, ToolResult } from "../../environment/types.js";
import { fail, textDelta } from "../call-text.js";
import { requiredString } from "../command/call-arguments.js";
import type { AgentSeat } from "./seat.js";

/** stop_agent in a session outside an agent tree (a run_subagent child launched nothing). */
export const NO_TREE_STOP_MESSAGE =
  "this agent has launched no agents (it was started by run_subagent, whose children cannot start children), so there is nothing it can stop.";

/**
 * `stop_agent {agent_run_id}`: stops a child the caller launched (the root: any child) and every
 * agent below it, with every command and job they started (their process groups), and reports
 * what was stopped; the caller's trace gets `agent_stopped`.
 */
export function createStopAgentTool(
  definition: ToolDefinitionConfig,
  seat: AgentSeat | undefined,
): BuiltinTool {
  async function* execute(
    args: Record<string, unknown>,
    ctx: ToolExecutionContext,
  ): AsyncGenerator<OmniMessage, ToolResult> {
    if (!seat) return yield* fail(ctx, NO_TREE_STOP_MESSAGE);
    const id = requiredString(args, "agent_run_id");
    if (!id.ok) return yield* fail(ctx, id.error);
    const target = id.value.trim();
    const reason = `stopped by ${seat.self} with stop_agent`;
    const result = await seat.manager.stopTree(seat.self, target, reason);
    if (!result.ok) return yield* fail(ctx, result.error);
    const { stopped, processesEnded } = result;
    if (stopped.length === 0 && processesEnded === 0) {
      yield* textDelta(
        ctx.toolCallId,
        `Nothing was running: ${target} and the agents it launched had already finished, and none of their commands or jobs was left.`,
      );
      return { stopReason: "completed" };
    }
    yield agentStopped({
      agent_run_id: target,
      stopped,
      processes_ended: processesEnded,
      reason,
      tool_call_id: ctx.toolCallId,
    });
    const agents = stopped.length > 0 ? `Stopped ${stopped.join(", ")}` : `No agent of ${target} was running`;
    const groups = processesEnded === 1 ? "1 process group" : `${processesEnded} process groups`;
    yield* textDelta(ctx.toolCallId, `${agents}; ended ${groups} of their commands and jobs.`);
    return { stopReason: "completed" };
  }

  return { name: definition.name, definition, execute };
}
