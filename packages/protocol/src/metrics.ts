// The vocabulary of a session's metrics (read_metrics, `penguin metrics`, the server): what one
// row summarises and the fields of a row. The trace package computes rows from a trace.

/** "summary picks tools, models, turns, agents, hooks, or sessions." */
export const METRICS_SUMMARIES = ["tools", "models", "turns", "agents", "hooks", "sessions"] as const;
export type MetricsSummary = (typeof METRICS_SUMMARIES)[number];

/** One row: a tool, a model, a turn, a child agent, a hook or a session. Durations in ms. */
export interface MetricsRow {
  name: string;
  count: number;
  total_ms: number;
  p50_ms: number;
  p95_ms: number;
  max_ms: number;
  errors: number;
  /** Models, agents and sessions: tokens used. */
  tokens?: number;
  cost_usd?: number;
}
