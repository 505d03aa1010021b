// The agent-tree tools (launch_agent, stop_agent), bound to one agent's seat in its session's tree.
import { LAUNCH_AGENT_DEFINITION } from "@penguin/state";
import type { ToolFactory } from "../../environment/types.js";
import { createLaunchAgentTool } from "./launch-agent.js";
import type { AgentSeat } from "./seat.js";
import { createStopAgentTool } from "./stop-agent.js";

export { type InlineAgent, type LaunchAgentArgs, parseLaunchAgentArgs } from "./arguments.js";
export { createLaunchAgentTool, depthCapMessage, NO_TREE_LAUNCH_MESSAGE } from "./launch-agent.js";
export { type AgentSeat, mayLaunch } from "./seat.js";
export { createStopAgentTool, NO_TREE_STOP_MESSAGE } from "./stop-agent.js";

/** launch_agent: offered only to an agent whose children stay within `child_agents.max_depth`. */
export const LAUNCH_AGENT_TOOL_NAME = LAUNCH_AGENT_DEFINITION.name;

/** Factories of launch_agent and stop_agent for one agent (none: they fail with the reason). */
export function agentTreeToolFactories(seat: AgentSeat | undefined): Record<string, ToolFactory> {
  return {
    launch_agent: (definition) => createLaunchAgentTool(definition, seat),
    stop_agent: (definition) => createStopAgentTool(definition, seat),
  };
}
