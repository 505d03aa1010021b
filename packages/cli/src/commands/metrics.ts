import { formatMetricsRows } from "@penguin/core";
import { METRICS_SUMMARIES, type MetricsSummary } from "@penguin/protocol";
import { listSessions, sessionMetrics } from "@penguin/trace";
import { type DataRootOptions, dataRootOf, traceLocationOf } from "../data-root.js";
import { EXIT_COMPLETED, UsageError } from "../exit-codes.js";
import { endQuietlyOnClosedPipe, out } from "../output.js";
import { requireSession, toCliError } from "../session-lookup.js";

export interface MetricsOptions extends DataRootOptions {
  /** The session; default the most recent top-level session. */
  session?: string;
  summary?: string;
  json?: boolean;
}

const isSummary = (value: string): value is MetricsSummary =>
  (METRICS_SUMMARIES as readonly string[]).includes(value);

/**
 * `penguin metrics [--session id] [--summary tools|models|turns|agents|hooks|sessions] [--json]`:
 * the rows read_metrics gives the model, for a person (a table) or a program (JSON lines).
 */
export async function metricsCommand(opts: MetricsOptions): Promise<number> {
  const summary = opts.summary ?? "tools";
  if (!isSummary(summary)) {
    throw new UsageError(`--summary must be one of ${METRICS_SUMMARIES.join(", ")}; got "${summary}"`);
  }
  const loc = traceLocationOf(dataRootOf(opts));
  const sessionId = opts.session ?? listSessions(loc).find((s) => s.source === undefined)?.sessionId;
  if (sessionId === undefined)
    throw new UsageError("no session has been recorded yet; run one with `penguin run`");
  requireSession(loc, sessionId);
  endQuietlyOnClosedPipe();
  let rows: ReturnType<typeof sessionMetrics>;
  try {
    rows = sessionMetrics(loc, sessionId, summary);
  } catch (error) {
    throw toCliError(error, `read session ${sessionId}`);
  }
  if (opts.json) {
    for (const row of rows) out(JSON.stringify(row));
  } else {
    out(`session ${sessionId}`);
    for (const line of formatMetricsRows(summary, rows, rows.length).split("\n")) out(line);
  }
  return EXIT_COMPLETED;
}
