import type { OmniMessage } from "@penguin/protocol";
import type { ToolDefinitionConfig } from "@penguin/state";
import type { BuiltinTool, ToolExecutionContext, ToolResult } from "../../environment/types.js";
import { fail, textDelta } from "../call-text.js";
import { parseInputSubagentArgs } from "./arguments.js";
import { finishedResult, followForCall, interruptedNote } from "./follow.js";
import type { SubagentManager } from "./manager.js";
import { DEPTH_CAP_MESSAGE } from "./run-subagent.js";

/**
 * `input_subagent`: polls a subagent (empty prompt) or sends it a follow-up prompt, "accepted
 * only while the child Session is idle". A poll streams the child's messages and returns its new
 * text, or its final answer once the task has ended; while the child waits for an approval
 * decision, the note says which call waits.
 */
export function createInputSubagentTool(
  definition: ToolDefinitionConfig,
  manager: SubagentManager | undefined,
): BuiltinTool {
  async function* execute(
    args: Record<string, unknown>,
    ctx: ToolExecutionContext,
  ): AsyncGenerator<OmniMessage, ToolResult> {
    if (!manager) return yield* fail(ctx, DEPTH_CAP_MESSAGE);
    const parsed = parseInputSubagentArgs(args, definition.timeoutMs);
    if (!parsed.ok) return yield* fail(ctx, parsed.error);
    // `description` is for front ends only; execution ignores it.
    const { subagentId, prompt, windowMs } = parsed.value;
    const subagent = manager.get(subagentId);
    if (!subagent) return yield* fail(ctx, manager.unknownMessage(subagentId));

    if (prompt === undefined) {
      if (subagent.status === "running")
        return yield* followForCall(subagent, ctx, { windowMs, foreground: false });
      subagent.touch();
      if (subagent.status === "interrupted") {
        yield* textDelta(ctx.toolCallId, subagent.takeUnread());
        return { stopReason: "completed", note: interruptedNote(subagent) };
      }
      yield* textDelta(ctx.toolCallId, subagent.takeFinalOutput());
      return finishedResult(subagent);
    }

    if (subagent.status === "running") {
      const waiting = subagent.pendingApprovals.length > 0 ? " (it is waiting for an approval decision)" : "";
      return yield* fail(
        ctx,
        `subagent ${subagent.id} is still running its task${waiting}, so it cannot take a follow-up prompt yet: poll it with input_subagent without a prompt until it finishes, then send the follow-up.`,
      );
    }
    if (ctx.signal?.aborted) return { stopReason: "aborted", note: "[not sent: the call was aborted]" };
    const reopened = await manager.reopen(subagent);
    if (!reopened.ok) return yield* fail(ctx, reopened.error);
    const started = subagent.startTask(prompt, ctx.approve);
    if (!started.ok) return yield* fail(ctx, started.error);
    return yield* followForCall(subagent, ctx, { windowMs, foreground: true });
  }

  return { name: definition.name, definition, execute };
}
