import { sessionMetrics, type TraceLocation } from "@penguin/trace";
import type { MetricsSource } from "../tools/metrics/index.js";

/** read_metrics of session `sessionId`: rows computed from its trace, at each call. */
export function traceMetrics(location: TraceLocation, sessionId: string): MetricsSource {
  return (summary) => sessionMetrics(location, sessionId, summary);
}
