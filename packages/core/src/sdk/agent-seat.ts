import type { SystemConfig } from "@penguin/state";
import type { AgentCatalog } from "../named-agents/catalog.js";
import type { AgentSeat } from "../tools/agents/index.js";
import type { Mailbox } from "../tools/messaging/index.js";
import type { SubagentManager } from "../tools/subagent/index.js";
import { effectiveAllowedTools } from "./allowed-tools.js";
import { knownTools } from "./known-tools.js";

// An agent's seat in its session's agent tree (launch_agent and stop_agent work from it): the
// root's is made with the root's manager at depth 0; a launched child's with the same manager,
// its own run id and depth.

/** Where an agent of a tree sits: the root's manager and the agent's depth below the root. */
export interface TreePlace {
  manager: SubagentManager;
  depth: number;
}

interface AgentSeatInput extends TreePlace {
  /** The agent's run id (`root` or `sub_N`). */
  self: string;
  config: SystemConfig;
  customToolNames: readonly string[];
  agents: AgentCatalog;
}

/** The seat of a session's agent: the root's, a launched child's; none for a run_subagent child. */
export function seatOf(
  tree: TreePlace | undefined,
  mailbox: Mailbox | undefined,
  config: SystemConfig,
  customTools: readonly { name: string }[],
  agents: AgentCatalog,
): AgentSeat | undefined {
  if (!tree || !mailbox) return undefined;
  const customToolNames = customTools.map((tool) => tool.name);
  return agentSeat({ ...tree, self: mailbox.self, config, customToolNames, agents });
}

/** Whether an agent at `tree` may launch children (a run_subagent child has no place in a tree). */
export function mayLaunchAt(config: SystemConfig, tree: TreePlace | undefined): boolean {
  return tree !== undefined && tree.depth < config.child_agents.max_depth;
}

function agentSeat(input: AgentSeatInput): AgentSeat {
  const { config } = input;
  const tools = knownTools(config, input.customToolNames);
  return {
    manager: input.manager,
    self: input.self,
    depth: input.depth,
    maxDepth: config.child_agents.max_depth,
    namedAgents: input.agents,
    allowedTools: effectiveAllowedTools(config.allowed_tools),
    checkToolNames(names) {
      const unknown = names.filter((name) => !tools.has(name));
      if (unknown.length === 0) return { ok: true };
      return {
        ok: false,
        error: `allowed_tools names ${unknown.map((n) => `"${n}"`).join(", ")}, which no tool has. The tools are: ${tools.describe()}. Fix the name; nothing was launched.`,
      };
    },
  };
}
