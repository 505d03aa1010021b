// read_metrics: a session's own measurements, from its trace.
import type { ToolFactory } from "../../environment/types.js";
import { createReadMetricsTool, type MetricsSource } from "./read-metrics.js";

export { createReadMetricsTool, formatMetricsRows, type MetricsSource } from "./read-metrics.js";

/** The metrics tool's factory bound to one session's source, for `createBuiltinTools`. */
export function metricsToolFactories(source: MetricsSource | undefined): Record<string, ToolFactory> {
  return { read_metrics: (definition) => createReadMetricsTool(definition, source) };
}
