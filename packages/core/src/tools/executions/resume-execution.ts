import type { OmniMessage } from "@penguin/protocol";
import type { ToolDefinitionConfig } from "@penguin/state";
import {
  type AgentRecords,
  type Execution,
  executionJournal,
  executionRecords,
  type JournalEntry,
  listExecutions,
} from "@penguin/trace";
import type { BuiltinTool, ToolExecutionContext, ToolResult } from "../../environment/types.js";
import { answer, fail } from "../call-text.js";
import { executeWithArguments, stringArg } from "../files/file-tool-support.js";
import { type ExecutionSource, isWithin, readTree, unknownExecution } from "./source.js";

/** Characters of the interrupted task's prompt and last answer quoted back. */
const QUOTE_CHARS = 2_000;

const quote = (text: string) => (text.length > QUOTE_CHARS ? `${text.slice(0, QUOTE_CHARS)} […]` : text);

const how = (execution: Execution) =>
  execution.state === "paused"
    ? `was stopped (${execution.message ?? "aborted"})`
    : "was cut off: the process running it ended before it finished";

/** The prompt a relaunched child gets: what it was doing, and to check before redoing anything. */
function continuationPrompt(execution: Execution): string {
  const task = execution.prompt !== undefined ? `:\n\n${quote(execution.prompt)}\n\n` : ". ";
  return `[resumed] Your previous task ${how(execution)}${task}Continue it from where it stopped. First check the workspace for what was already done; a tool call that never reported may or may not have had its effect. Do not redo work that is already there.`;
}

/** Where a call its task left open got to, with the decision taken on it since, if any. */
function openCallState(entry: JournalEntry): string {
  if (entry.uncertain) return "started and never reported: it may or may not have had its effect";
  if (entry.resolution) {
    const { decision, by, evidence } = entry.resolution;
    return `started and never reported; since decided ${decision} by ${by}: ${evidence}`;
  }
  return `${entry.state}, never ran to its end`;
}

/** What an agent's own earlier task left: its prompt, last answer, and calls that never finished. */
function ownTaskSummary(execution: Execution, agent: AgentRecords, current: string): string {
  const records = executionRecords(agent, execution.task);
  const lastAnswer = records
    .map((record) => record.payload)
    .filter((p) => p.type === "text" && p.role === "assistant")
    .map((p) => (p as { text: string }).text)
    .at(-1);
  const open = executionJournal(agent, execution.task).filter(
    (entry) => entry.state !== "finished" && entry.state !== "denied",
  );
  const calls = open.map(
    (entry) =>
      `- ${entry.name} (${entry.toolCallId}) ${openCallState(entry)}; arguments ${entry.arguments.slice(0, 300)}`,
  );
  return [
    `Continuing ${execution.id} in this task (${current}). It ${how(execution)}.`,
    execution.prompt !== undefined ? `Its task:\n${quote(execution.prompt)}` : undefined,
    lastAnswer !== undefined ? `Your last words in it:\n${quote(lastAnswer)}` : undefined,
    calls.length > 0 ? `Calls it left open:\n${calls.join("\n")}` : undefined,
    "Your context already holds everything it did up to the interruption. Check the workspace for what was already done, then go on with that task.",
  ]
    .filter((part) => part !== undefined)
    .join("\n\n");
}

/**
 * `resume_execution {execution_id}`: continues paused or interrupted work. A child's last task
 * (the caller's descendant) is relaunched on the child's own session with a continuation prompt;
 * the caller's own earlier task (the one before the task now running) continues in this task.
 */
export function createResumeExecutionTool(
  definition: ToolDefinitionConfig,
  source: ExecutionSource | undefined,
): BuiltinTool {
  const execute = executeWithArguments(
    { id: stringArg("execution_id") },
    async function* ({ id }, ctx): AsyncGenerator<OmniMessage, ToolResult> {
      if (!source)
        return yield* fail(ctx, "this session keeps no trace, so it has no retained work to resume.");
      const tree = readTree(source);
      if (!tree.ok) return yield* fail(ctx, tree.error);
      const { agents, options } = tree;
      const all = listExecutions(agents, options);
      const execution = all.find((e) => e.id === id);
      if (!execution) return yield* fail(ctx, unknownExecution(id, agents));
      if (!isWithin(agents, execution.agentRunId, source.self)) {
        return yield* fail(
          ctx,
          `${source.self} cannot resume ${id}: an agent resumes only its own work and that of the agents it launched (and theirs). Nothing was resumed.`,
        );
      }
      if (execution.state !== "paused" && execution.state !== "interrupted") {
        return yield* fail(
          ctx,
          `${id} is ${execution.state}: only paused or interrupted work can be resumed.`,
        );
      }
      const later = all.filter((e) => e.agentRunId === execution.agentRunId && e.task > execution.task);
      if (execution.agentRunId === source.self) return yield* resumeOwn(ctx, execution, later, agents);
      if (!execution.resumable) {
        return yield* fail(
          ctx,
          `${id} is not ${execution.agentRunId}'s last task: ${later.at(-1)?.id} came after it and already went on from where it stopped. Nothing was resumed.`,
        );
      }
      if (!source.relaunch)
        return yield* fail(ctx, `this agent has no child agents to resume. Nothing was resumed.`);
      if (ctx.signal?.aborted) return { stopReason: "aborted", note: "[not resumed: the call was aborted]" };
      const started = await source.relaunch(execution.agentRunId, continuationPrompt(execution), ctx.approve);
      if (!started.ok) return yield* fail(ctx, started.error);
      return yield* answer(
        ctx,
        `Resumed ${id} on session ${execution.sessionId} as ${execution.agentRunId}/${execution.task + 1}: it continues in the background with a prompt that names its task and asks it to check the workspace first. Its report arrives as a launched agent's does (wait_messages; input_subagent polls a run_subagent child); stop_agent stops it.`,
      );
    },
  );
  return { name: definition.name, definition, execute };
}

/** The caller's own earlier task: only the one right before the task now running. */
async function* resumeOwn(
  ctx: ToolExecutionContext,
  execution: Execution,
  later: readonly Execution[],
  agents: readonly AgentRecords[],
): AsyncGenerator<OmniMessage, ToolResult> {
  const current = later[0];
  if (later.length !== 1 || current?.state !== "running") {
    return yield* fail(
      ctx,
      `${execution.id} is not the task right before this one${current ? ` (${later.map((e) => e.id).join(", ")} came after it)` : ""}: a later task already went on from where it stopped. Nothing was resumed.`,
    );
  }
  const agent = agents.find((a) => a.agentRunId === execution.agentRunId);
  if (!agent) return yield* fail(ctx, unknownExecution(execution.id, agents));
  return yield* answer(ctx, ownTaskSummary(execution, agent, current.id));
}
