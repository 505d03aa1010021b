import { MAX_FINISHED_ANSWER_CHARS, ROOT_AGENT_RUN_ID } from "@penguin/state";
import type { MessageHub } from "../messaging/hub.js";
import type { Subagent } from "./subagent.js";

// The shape of a session's agent tree: who descends from whom (stop_agent stops a subtree, and
// only the agents above it may), and what a launched child tells its launcher when it finishes.

/** Whether `id` is `ancestor` or lies below it; everything lies below the root. */
export function descendsFrom(byId: ReadonlyMap<string, Subagent>, id: string, ancestor: string): boolean {
  if (ancestor === ROOT_AGENT_RUN_ID) return true;
  let current: string | undefined = id;
  // The depth bounds the walk: a parent is always one level up.
  for (let steps = 0; current !== undefined && steps <= byId.size; steps++) {
    if (current === ancestor) return true;
    current = byId.get(current)?.placement.parent;
  }
  return false;
}

/** `target` and every kept agent below it, deepest first (children end before their launcher). */
export function subtreeDeepestFirst(byId: ReadonlyMap<string, Subagent>, target: string): Subagent[] {
  return [...byId.values()]
    .filter((subagent) => descendsFrom(byId, subagent.id, target))
    .sort((a, b) => b.placement.depth - a.placement.depth);
}

/**
 * Sends a launched child's report of its end to its launcher, marked so that the launcher's
 * wait_messages records `agent_finished` when it reads it. A launcher that no longer receives
 * (its own task ended) is not told: nobody would read it.
 */
export function reportEnd(hub: MessageHub, subagent: Subagent): void {
  const outcome = subagent.lastTask ?? { status: "aborted" as const };
  hub.report(subagent.id, subagent.placement.parent, finishedMessageText(subagent), {
    agentRunId: subagent.id,
    status: outcome.status,
    ...(outcome.message ? { message: outcome.message } : {}),
  });
}

/**
 * The message a launched child sends its launcher when its task ends: "the status and its final
 * answer, bounded in size" (an answer past MAX_FINISHED_ANSWER_CHARS is cut, and says so).
 */
export function finishedMessageText(subagent: Subagent): string {
  const outcome = subagent.lastTask ?? { status: "aborted" };
  const why = outcome.message ? ` (${outcome.message})` : "";
  const head = `[agent ${subagent.id} finished: ${outcome.status}${why}]`;
  const answer = subagent.finalAnswer;
  if (answer === undefined || answer.trim() === "") return `${head}\nIt gave no final answer.`;
  if (answer.length <= MAX_FINISHED_ANSWER_CHARS) return `${head}\nFinal answer:\n${answer}`;
  const cut = answer.length - MAX_FINISHED_ANSWER_CHARS;
  return `${head}\nFinal answer (its last ${cut} characters were cut; its trace has all of it):\n${answer.slice(0, MAX_FINISHED_ANSWER_CHARS)}`;
}
