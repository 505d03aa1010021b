import { agentLaunched, type OmniMessage, subagentPointer } from "@penguin/protocol";
import type { ToolDefinitionConfig } from "@penguin/state";
import type { BuiltinTool, ToolExecutionContext, ToolResult } from "../../environment/types.js";
import { fail, textDelta } from "../call-text.js";
import type { ChildSessionRequest } from "../subagent/types.js";
import { type LaunchAgentArgs, parseLaunchAgentArgs } from "./arguments.js";
import { type AgentSeat, mayLaunch } from "./seat.js";

/** launch_agent in a session outside an agent tree (a run_subagent child). */
export const NO_TREE_LAUNCH_MESSAGE =
  "this agent cannot launch agents: it was started by run_subagent, whose children cannot start children. Do the work yourself.";

/** Past `child_agents.max_depth` ("past a cap the call fails with a message that names the cap"). */
export function depthCapMessage(seat: Pick<AgentSeat, "depth" | "maxDepth">): string {
  return `cannot launch an agent: you are at depth ${seat.depth} of the agent tree, and its children would pass the cap child_agents.max_depth (${seat.maxDepth}, a setting of the agent's system_config.yaml). Do the work yourself, or report back to the agent that launched you.`;
}

/**
 * `launch_agent {task, agent | agent_definition}`: starts a child (one level below the caller,
 * with the caller as its parent) on the root's manager and returns its agent_run_id at once; the
 * child works in the background. The caller's trace gets the `subagent` pointer (so a resumed
 * session finds the child) and `agent_launched`.
 */
export function createLaunchAgentTool(
  definition: ToolDefinitionConfig,
  seat: AgentSeat | undefined,
): BuiltinTool {
  async function* execute(
    args: Record<string, unknown>,
    ctx: ToolExecutionContext,
  ): AsyncGenerator<OmniMessage, ToolResult> {
    if (!seat) return yield* fail(ctx, NO_TREE_LAUNCH_MESSAGE);
    if (!mayLaunch(seat)) return yield* fail(ctx, depthCapMessage(seat));
    const parsed = parseLaunchAgentArgs(args);
    if (!parsed.ok) return yield* fail(ctx, parsed.error);
    const child = childRequest(parsed.value, seat);
    if (!child.ok) return yield* fail(ctx, child.error);
    if (ctx.signal?.aborted) return { stopReason: "aborted", note: "[not launched: the call was aborted]" };

    const { request, agent } = child;
    const depth = seat.depth + 1;
    const spawned = await seat.manager.spawn(request, {
      parent: seat.self,
      depth,
      launched: true,
      ...(agent !== undefined ? { agent } : {}),
    });
    if (!spawned.ok) return yield* fail(ctx, spawned.error);
    const subagent = spawned.subagent;
    // The pointer and the launch go into the launcher's trace before the child does anything.
    yield subagentPointer(subagent.sessionId, { subagent_id: subagent.id, tool_call_id: ctx.toolCallId });
    yield agentLaunched({
      agent_run_id: subagent.id,
      parent: seat.self,
      session_id: subagent.sessionId,
      depth,
      ...(agent !== undefined ? { agent } : {}),
      task: parsed.value.task,
      tool_call_id: ctx.toolCallId,
    });
    const started = subagent.startTask(parsed.value.task, ctx.approve);
    if (!started.ok) return yield* fail(ctx, started.error);
    const what = agent !== undefined ? `named agent "${agent}"` : "an inline agent";
    yield* textDelta(
      ctx.toolCallId,
      `Launched ${subagent.id} (${what}); it works in the background. agent_run_id: ${subagent.id}\nIts messages, and its report when its task ends, arrive through wait_messages; send_message talks to it; stop_agent stops it.`,
    );
    return { stopReason: "completed" };
  }

  return { name: definition.name, definition, execute };
}

type ChildRequest = { ok: true; request: ChildSessionRequest; agent?: string } | { ok: false; error: string };

/** The child's instructions, tools and model, from a named agent or the inline definition. */
function childRequest(args: LaunchAgentArgs, seat: AgentSeat): ChildRequest {
  let request: ChildSessionRequest;
  let agent: string | undefined;
  if ("agent" in args) {
    const named = seat.namedAgents.get(args.agent);
    if (!named) return { ok: false, error: unknownAgentMessage(args.agent, seat) };
    agent = named.name;
    request = { instructions: named.instructions };
    if (named.allowedTools) request.allowedTools = [...named.allowedTools];
  } else {
    request = { instructions: args.inline.instructions };
    if (args.inline.allowedTools) request.allowedTools = args.inline.allowedTools;
    if (args.inline.model) request.model = args.inline.model;
  }
  const tools = childTools(request.allowedTools, seat);
  if (!tools.ok) return tools;
  if (tools.names) request.allowedTools = tools.names;
  return agent === undefined ? { ok: true, request } : { ok: true, request, agent };
}

/**
 * The tools a child is offered: the ones asked for, each a tool of this session's agents and of
 * the launcher ("a child is never given a tool its launcher lacks"); none asked: the launcher's.
 */
function childTools(
  asked: readonly string[] | undefined,
  seat: AgentSeat,
): { ok: true; names?: string[] } | { ok: false; error: string } {
  if (asked === undefined)
    return seat.allowedTools ? { ok: true, names: [...seat.allowedTools] } : { ok: true };
  const known = seat.checkToolNames(asked);
  if (!known.ok) return known;
  const mine = seat.allowedTools;
  const notMine = mine ? asked.filter((name) => !mine.includes(name)) : [];
  if (notMine.length > 0) {
    return {
      ok: false,
      error: `allowed_tools names ${notMine.map((n) => `"${n}"`).join(", ")}, which you may not use yourself; a child gets only tools you have (${mine?.join(", ")}). Nothing was launched.`,
    };
  }
  return { ok: true, names: [...asked] };
}

function unknownAgentMessage(name: string, seat: AgentSeat): string {
  const names = seat.namedAgents.list().map((agent) => agent.name);
  const known =
    names.length > 0
      ? `The named agents of this session are: ${names.join(", ")}.`
      : "This session has no named agents (.agents/agents/<name>.md).";
  return `no named agent "${name}". ${known} Use one of them, or describe the agent inline with agent_definition. Nothing was launched.`;
}
