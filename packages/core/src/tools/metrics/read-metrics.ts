import { errorMessage, METRICS_SUMMARIES, type MetricsRow, type MetricsSummary } from "@penguin/protocol";
import { DEFAULT_READ_METRICS_ROWS, MAX_READ_METRICS_ROWS, type ToolDefinitionConfig } from "@penguin/state";
import type { BuiltinTool } from "../../environment/types.js";
import { answer, fail } from "../call-text.js";
import { executeWithArguments, positiveIntegerArg, stringArg } from "../files/file-tool-support.js";

/** Where read_metrics reads a session's rows from (the SDK reads them from the session's traces). */
export type MetricsSource = (summary: MetricsSummary) => MetricsRow[];

const isSummary = (value: string): value is MetricsSummary =>
  (METRICS_SUMMARIES as readonly string[]).includes(value);

const ms = (n: number) => (n >= 10_000 ? `${(n / 1000).toFixed(1)}s` : `${n}ms`);

/** Rows as a fixed-width table, one line each, slowest first. */
export function formatMetricsRows(
  summary: MetricsSummary,
  rows: readonly MetricsRow[],
  total: number,
): string {
  if (rows.length === 0) return `No ${summary} measured in this session yet.`;
  const withUsage = rows.some((row) => row.tokens !== undefined || row.cost_usd !== undefined);
  const header = [
    "name",
    "count",
    "total",
    "p50",
    "p95",
    "max",
    "errors",
    ...(withUsage ? ["tokens", "cost"] : []),
  ];
  const lines = rows.map((row) => [
    row.name,
    String(row.count),
    ms(row.total_ms),
    ms(row.p50_ms),
    ms(row.p95_ms),
    ms(row.max_ms),
    String(row.errors),
    ...(withUsage
      ? [
          row.tokens === undefined ? "-" : String(row.tokens),
          row.cost_usd === undefined ? "-" : `$${row.cost_usd.toFixed(4)}`,
        ]
      : []),
  ]);
  const widths = header.map((title, i) =>
    Math.max(title.length, ...lines.map((line) => (line[i] ?? "").length)),
  );
  const render = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  const more =
    total > rows.length ? `\n[${total - rows.length} more rows not shown; raise limit to see them]` : "";
  return `${summary}, slowest first:\n${[render(header), ...lines.map(render)].join("\n")}${more}`;
}

/**
 * `read_metrics {summary, limit?}`: this session's own measurements, read from its trace (and its
 * children's for `agents`), slowest first. Reading changes nothing.
 */
export function createReadMetricsTool(
  definition: ToolDefinitionConfig,
  source: MetricsSource | undefined,
): BuiltinTool {
  const execute = executeWithArguments(
    { summary: stringArg("summary"), limit: positiveIntegerArg("limit", DEFAULT_READ_METRICS_ROWS) },
    async function* ({ summary, limit }, ctx) {
      if (!isSummary(summary)) {
        return yield* fail(ctx, `summary must be one of ${METRICS_SUMMARIES.join(", ")}; got "${summary}".`);
      }
      if (!source) return yield* fail(ctx, "this session keeps no trace, so it has no measurements to read.");
      let rows: MetricsRow[];
      try {
        rows = source(summary);
      } catch (error) {
        return yield* fail(ctx, `the session's measurements could not be read: ${errorMessage(error)}`);
      }
      const shown = rows.slice(0, Math.min(limit, MAX_READ_METRICS_ROWS));
      return yield* answer(ctx, formatMetricsRows(summary, shown, rows.length));
    },
  );
  return { name: definition.name, definition, execute };
}
