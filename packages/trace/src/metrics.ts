import type { MetricsRow, MetricsSummary, OmniMessage } from "@penguin/protocol";
import type { TraceLocation } from "./location.js";
import { type Observation, type ObservationKind, observationsOf } from "./observations.js";
import { readSession } from "./reader.js";
import { listSessions } from "./sessions.js";
import { type SubagentNode, subagentTree } from "./subagents.js";

// read_metrics and `penguin metrics`: a session's observations (observations.ts) summarised one
// way. "summary picks tools, models, turns, agents, hooks, or sessions. Rows come slowest first."

/** `sessions` reads whole traces: the newest 100 top-level sessions of the same agent, no more. */
export const MAX_SUMMARIZED_SESSIONS = 100;

const KIND_OF: Record<"tools" | "models" | "turns" | "hooks", ObservationKind> = {
  tools: "tool",
  models: "model",
  turns: "turn",
  hooks: "hook",
};

/** The `q` quantile of sorted durations, nearest rank. */
function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil(q * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? 0;
}

/** Rows of `observations` grouped by name, slowest first (by p95, then total). */
export function summarizeObservations(observations: readonly Observation[]): MetricsRow[] {
  const groups = new Map<string, Observation[]>();
  for (const observation of observations) {
    const group = groups.get(observation.name) ?? [];
    group.push(observation);
    groups.set(observation.name, group);
  }
  const rows: MetricsRow[] = [];
  for (const [name, group] of groups) {
    const durations = group.map((o) => Math.round(o.durationMs)).sort((a, b) => a - b);
    const row: MetricsRow = {
      name,
      count: group.length,
      total_ms: durations.reduce((sum, d) => sum + d, 0),
      p50_ms: quantile(durations, 0.5),
      p95_ms: quantile(durations, 0.95),
      max_ms: durations[durations.length - 1] ?? 0,
      errors: group.filter((o) => o.error).length,
    };
    const tokens = group.filter((o) => o.tokens !== undefined);
    if (tokens.length > 0) row.tokens = tokens.reduce((sum, o) => sum + (o.tokens ?? 0), 0);
    const costs = group.filter((o) => o.costUsd !== undefined);
    if (costs.length > 0) row.cost_usd = costs.reduce((sum, o) => sum + (o.costUsd ?? 0), 0);
    rows.push(row);
  }
  return rows.sort((a, b) => b.p95_ms - a.p95_ms || b.total_ms - a.total_ms || a.name.localeCompare(b.name));
}

/** A whole trace as one observation: its model and tool time, tokens, cost and whether a task failed. */
function sessionObservation(name: string, records: readonly OmniMessage[]): Observation {
  const own = observationsOf(records);
  const turns = own.filter((o) => o.kind === "turn");
  const models = own.filter((o) => o.kind === "model");
  const failed = records.some(
    (r) =>
      r.origin === undefined &&
      r.type === "event_msg" &&
      r.payload.type === "task_end" &&
      r.payload.status !== "completed",
  );
  const observation: Observation = {
    kind: "turn",
    name,
    durationMs: turns.reduce((sum, o) => sum + o.durationMs, 0),
    error: failed,
  };
  if (models.some((o) => o.tokens !== undefined))
    observation.tokens = models.reduce((sum, o) => sum + (o.tokens ?? 0), 0);
  if (models.some((o) => o.costUsd !== undefined))
    observation.costUsd = models.reduce((sum, o) => sum + (o.costUsd ?? 0), 0);
  return observation;
}

/** Every child below `node`, depth first, named by its run id (`sub_N`) or its session id. */
function agentObservations(loc: TraceLocation, node: SubagentNode): Observation[] {
  const found: Observation[] = [];
  for (const child of node.children) {
    if (child.problem === undefined) {
      const name = child.subagentId ?? child.sessionId;
      try {
        found.push(sessionObservation(name, readSession(loc, child.sessionId).records));
      } catch {}
    }
    found.push(...agentObservations(loc, child));
  }
  return found;
}

/**
 * The rows of one summary of session `sessionId`. `agents` follows the session's children (and
 * theirs); `sessions` covers the top-level sessions of the same agent, newest first up to
 * MAX_SUMMARIZED_SESSIONS, one row each (its time is the sum of its turns). Throws TraceError when the session has no trace.
 */
export function sessionMetrics(loc: TraceLocation, sessionId: string, summary: MetricsSummary): MetricsRow[] {
  if (summary === "sessions") {
    const all = listSessions(loc);
    const agentId = all.find((session) => session.sessionId === sessionId)?.agentId;
    const peers = all
      .filter((session) => session.source === undefined && session.agentId === agentId)
      .slice(0, MAX_SUMMARIZED_SESSIONS);
    const observations: Observation[] = [];
    for (const session of peers) {
      try {
        observations.push(sessionObservation(session.sessionId, readSession(loc, session.sessionId).records));
      } catch {}
    }
    return summarizeObservations(observations);
  }
  if (summary === "agents")
    return summarizeObservations(agentObservations(loc, subagentTree(loc, sessionId)));
  const kind = KIND_OF[summary];
  const observations = observationsOf(readSession(loc, sessionId).records).filter((o) => o.kind === kind);
  return summarizeObservations(observations);
}
