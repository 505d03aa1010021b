import type { NamedAgent } from "@penguin/state";
import type { SubagentManager } from "../subagent/manager.js";

/**
 * One agent's place in its session's agent tree, as launch_agent and stop_agent need it: the
 * root's manager ("one runtime: one id space, one sessions cap, one stop path"), who the agent is
 * and how deep it sits, and what it may hand a child.
 */
export interface AgentSeat {
  /** The top-level session's manager, shared by every agent of the tree. */
  manager: SubagentManager;
  /** This agent's run id (`root` or `sub_N`). */
  self: string;
  /** Levels below the root (the root is 0). */
  depth: number;
  /** `child_agents.max_depth`: a child at this depth is not offered launch_agent. */
  maxDepth: number;
  /** The named agents this agent's session knows (launch_agent's `agent`). */
  namedAgents: { get(name: string): NamedAgent | undefined; list(): NamedAgent[] };
  /**
   * The tools this agent may use (`allowed_tools` plus the always-on ones); undefined: all of
   * its toolset. A child is never given a tool its launcher lacks.
   */
  allowedTools: readonly string[] | undefined;
  /** Checks tool names against the tools agents of this session can have; the error names them. */
  checkToolNames(names: readonly string[]): { ok: true } | { ok: false; error: string };
}

/** Whether an agent at `depth` may launch children: its children would sit at `depth + 1`. */
export function mayLaunch(seat: Pick<AgentSeat, "depth" | "maxDepth">): boolean {
  return seat.depth < seat.maxDepth;
}
