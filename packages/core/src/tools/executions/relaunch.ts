import type { SubagentManager } from "../subagent/index.js";
import type { ChildRelauncher } from "./source.js";

// resume_execution on a child: its kept session is reopened from its trace (when the process that
// ran it is gone) and given a continuation task, under the same caps as a launch: the tree's depth
// (`child_agents.max_depth`) and the launched children running at once (`child_agents.max_running`).

export function childRelauncher(manager: SubagentManager, maxDepth: number): ChildRelauncher {
  return async (agentRunId, prompt, approve) => {
    const child = manager.get(agentRunId);
    if (!child) return { ok: false, error: manager.unknownMessage(agentRunId) };
    if (child.status === "running")
      return { ok: false, error: `${agentRunId} is running: nothing to resume.` };
    if (child.status === "disposed") return { ok: false, error: `${agentRunId} was ended with its session.` };
    if (child.placement.depth > maxDepth) {
      return {
        ok: false,
        error: `cannot resume ${agentRunId}: it sits at depth ${child.placement.depth}, past the cap child_agents.max_depth (${maxDepth}). Nothing was resumed.`,
      };
    }
    const reopened = await manager.reopen(child);
    if (!reopened.ok) return reopened;
    // Checked after the reopen's wait, right before the start: resumes of one round run at once.
    const capped = child.placement.launched ? manager.runningCapRefusal() : undefined;
    if (capped !== undefined) return { ok: false, error: `${capped} Nothing was resumed.` };
    return child.startTask(prompt, approve);
  };
}
