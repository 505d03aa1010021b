import { access } from "node:fs/promises";
import { join } from "node:path";
import { modelVisiblePath } from "@penguin/state";
import type { SessionPlan } from "@penguin/trace";
import type { OpenWork } from "../engine/compaction/open-work.js";
import { GOAL_FILE_NAME, readGoalStatus } from "../goal/index.js";
import type { ProcessManager } from "../processes/process-manager.js";
import type { SubagentManager } from "../tools/subagent/index.js";

/** "The model's PLAN.md" in the session's scratchpad: named after a summary when it exists. */
export const PLAN_FILE_NAME = "PLAN.md";

/** Where a session's open work lives. */
export interface OpenWorkSources {
  processes: ProcessManager;
  subagents?: SubagentManager;
  scratchpadDir: string;
  /** The session's plan: its checklist is carried into the compacted context. */
  plan?: SessionPlan;
}

/**
 * What a session still has open, as plain data for the compaction: its running command sessions
 * and jobs (one registry: exec_command and run_command both start them), its running or idle
 * subagents, and the goal and plan files in its scratchpad.
 */
export async function openWorkOf(sources: OpenWorkSources): Promise<OpenWork> {
  const commands = sources.processes
    .list()
    .filter((info) => info.status === "running")
    .map((info) => ({ id: info.id, command: info.cmd, startedBy: info.origin }));
  const subagents = (sources.subagents?.list() ?? [])
    .filter((child) => child.status === "running" || child.status === "idle")
    .map((child) => ({
      id: child.subagentId,
      status: child.status,
      ...(child.lastTask ? { lastTask: child.lastTask.status } : {}),
    }));
  const goalPath = join(sources.scratchpadDir, GOAL_FILE_NAME);
  const planPath = join(sources.scratchpadDir, PLAN_FILE_NAME);
  const [goalExists, planExists] = await Promise.all([exists(goalPath), exists(planPath)]);
  const goalStatus = goalExists ? await readGoalStatus(goalPath) : undefined;
  return {
    commands,
    subagents,
    ...(goalStatus ? { goalFile: { path: modelVisiblePath(goalPath), status: goalStatus.status } } : {}),
    ...(planExists ? { planFile: modelVisiblePath(planPath) } : {}),
    ...(sources.plan?.steps?.length ? { plan: sources.plan.steps } : {}),
  };
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
