import { METRICS_SUMMARIES } from "@penguin/protocol";
import type { ToolDefinitionConfig } from "./definition-parts.js";
import { objectSchema } from "./definition-parts.js";

// read_metrics: "reads the session's own stored observations. summary picks tools, models,
// turns, agents, hooks, or sessions. Rows come slowest first." The observations are the
// session's trace (durations between its records); core's tools/metrics/ implements it.

/** Rows a call returns by default, and at most: a summary of a long session stays readable. */
export const DEFAULT_READ_METRICS_ROWS = 20;
export const MAX_READ_METRICS_ROWS = 200;

export const READ_METRICS_DEFINITION: ToolDefinitionConfig = {
  name: "read_metrics",
  description: `Read this session's own measurements, slowest first: per tool, model, turn, child agent, hook, or (sessions) each recent session of this agent. Each row: count, total/p50/p95/max ms, errors; tokens and cost for models, agents and sessions.`,
  parameters: objectSchema(
    {
      summary: { type: "string", enum: [...METRICS_SUMMARIES], description: "What one row is." },
      limit: {
        type: "integer",
        minimum: 1,
        maximum: MAX_READ_METRICS_ROWS,
        default: DEFAULT_READ_METRICS_ROWS,
        description: "Rows to return.",
      },
    },
    ["summary"],
  ),
  permission: "r",
  timeoutMs: 30_000,
  maxOutputLength: 20_000,
};

export const METRICS_TOOL_DEFINITIONS: readonly ToolDefinitionConfig[] = [READ_METRICS_DEFINITION];
