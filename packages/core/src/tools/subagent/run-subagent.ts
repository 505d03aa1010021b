import { type OmniMessage, subagentPointer } from "@penguin/protocol";
import type { ToolDefinitionConfig } from "@penguin/state";
import type { BuiltinTool, ToolExecutionContext, ToolResult } from "../../environment/types.js";
import { fail, NOT_STARTED_NOTE } from "../call-text.js";
import { parseRunSubagentArgs } from "./arguments.js";
import { followForCall } from "./follow.js";
import type { SubagentManager } from "./manager.js";

/** "Depth is capped at 1: a subagent cannot spawn another subagent." */
export const DEPTH_CAP_MESSAGE =
  "subagents cannot start or drive subagents: depth is capped at 1, and this session has no subagent sessions of its own. Do the work yourself.";

/**
 * `run_subagent`: starts a child agent session on a self-contained prompt, links it from the
 * parent's trace (a `subagent` pointer event), streams its messages into the parent, and waits in
 * the foreground up to `yield_time_ms`. It returns the child's final answer when the task ends in
 * the window, else the child's text so far and a subagent_id for input_subagent.
 *
 * `manager` is the parent session's; a session without one (a subagent) refuses the call.
 */
export function createRunSubagentTool(
  definition: ToolDefinitionConfig,
  manager: SubagentManager | undefined,
): BuiltinTool {
  async function* execute(
    args: Record<string, unknown>,
    ctx: ToolExecutionContext,
  ): AsyncGenerator<OmniMessage, ToolResult> {
    if (!manager) return yield* fail(ctx, DEPTH_CAP_MESSAGE);
    const parsed = parseRunSubagentArgs(args, definition.timeoutMs);
    if (!parsed.ok) return yield* fail(ctx, parsed.error);
    // `description` is for front ends only; execution ignores it.
    if (ctx.signal?.aborted) return { stopReason: "aborted", note: NOT_STARTED_NOTE };

    const request = parsed.value;
    const spawned = await manager.spawn({
      ...(request.agentId ? { agentId: request.agentId } : {}),
      ...(request.model ? { model: request.model } : {}),
    });
    if (!spawned.ok) return yield* fail(ctx, spawned.error);
    const subagent = spawned.subagent;
    // The pointer goes into the parent's trace before anything of the child streams in.
    yield subagentPointer(subagent.sessionId, { subagent_id: subagent.id, tool_call_id: ctx.toolCallId });
    const started = subagent.startTask(request.prompt, ctx.approve);
    if (!started.ok) return yield* fail(ctx, started.error);
    return yield* followForCall(subagent, ctx, { windowMs: request.windowMs, foreground: true });
  }

  return { name: definition.name, definition, execute };
}
