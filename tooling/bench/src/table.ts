/** One measured figure. Ratios against a baseline measured in the same run carry the point. */
export interface BenchRow {
  benchmark: string;
  metric: string;
  value: number;
  unit: string;
  /** The target this figure is held to, in words (e.g. "<= 1.3"). */
  target?: string;
  /** Whether the figure meets its target; undefined when there is none. */
  ok?: boolean;
  /**
   * The figure is a difference of two samples that may come out negative (memory growth after
   * GC: the runtime can hand pages back); every other figure is a positive measurement.
   */
  signed?: boolean;
  /** The figure counts things that may be none (zod schemas built before a request): zero is a figure. */
  count?: boolean;
}

function format(value: number): string {
  if (Number.isInteger(value)) return value.toLocaleString("en-US");
  if (Math.abs(value) >= 100) return value.toFixed(0);
  if (Math.abs(value) >= 1) return value.toFixed(2);
  return value.toPrecision(3);
}

/** A Markdown table, so the output can be pasted into docs/benchmarks.md as it is. */
export function renderTable(rows: BenchRow[]): string {
  const header = ["benchmark", "metric", "value", "unit", "target", "ok"];
  const body = rows.map((r) => [
    r.benchmark,
    r.metric,
    format(r.value),
    r.unit,
    r.target ?? "",
    r.ok === undefined ? "" : r.ok ? "yes" : "NO",
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
  return [line(header), `| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`, ...body.map(line)].join("\n");
}
