// The comparison as a Markdown table (or one JSON line): each measurement, and its events/s
// against the SQLite instance's of the same round.

/** Adds `vs_sqlite` (events/s over the single SQLite instance's in the same round) to each row. */
export function withRatios(rows) {
  return rows.map((row) => {
    const base = rows.find((other) => other.round === row.round && other.configuration === "sqlite");
    return {
      ...row,
      vs_sqlite:
        base === undefined ? undefined : Number((row.events_per_second / base.events_per_second).toFixed(2)),
    };
  });
}

function median(values) {
  const sorted = values.toSorted((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Per configuration over the rounds: median events/s, ratio, p50 and p99. */
export function medians(rows) {
  const names = [...new Set(rows.map((row) => row.configuration))];
  return names.map((configuration) => {
    const mine = rows.filter((row) => row.configuration === configuration);
    const of = (key) => {
      const values = mine.map((row) => row[key]).filter((value) => value !== undefined);
      return values.length === 0 ? undefined : median(values);
    };
    return {
      configuration,
      rounds: mine.length,
      events_per_second: of("events_per_second"),
      vs_sqlite: of("vs_sqlite"),
      delay_p50_ms: of("delay_p50_ms"),
      delay_p99_ms: of("delay_p99_ms"),
    };
  });
}

const DESCRIPTIONS = {
  sqlite: "1 instance, SQLite",
  postgres: "1 instance, PostgreSQL",
  "postgres-2-relayed": "2 instances, one PostgreSQL, every event relayed",
  "postgres-2-db-traces": "as above, traces in PostgreSQL, a data root per instance",
  "postgres-2-local": "2 instances, one PostgreSQL, clients on the owner",
};

export function markdownReport({ rows, summary, header }) {
  const lines = [...header, ""];
  lines.push(
    "| configuration | round | sessions | clients on another instance | SSE events | per client | wall time | events/s | vs SQLite | chunk → SSE client p50 | p99 | max | load (1 min) |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  );
  for (const row of rows) {
    lines.push(
      `| ${DESCRIPTIONS[row.configuration]} | ${row.round} | ${row.sessions} | ${row.relayed_clients} | ${row.events} | ${row.events_per_client_min === row.events_per_client_max ? row.events_per_client_min : `${row.events_per_client_min} – ${row.events_per_client_max}`} | ${row.seconds} s | ${row.events_per_second} | ${row.vs_sqlite ?? "–"} | ${row.delay_p50_ms} ms | ${row.delay_p99_ms} ms | ${row.delay_max_ms} ms | ${row.load_1m} |`,
    );
  }
  if (summary.some((entry) => entry.rounds > 1)) {
    lines.push(
      "",
      "| configuration (median of rounds) | events/s | vs SQLite | p50 | p99 |",
      "|---|---:|---:|---:|---:|",
    );
    for (const entry of summary) {
      lines.push(
        `| ${DESCRIPTIONS[entry.configuration]} | ${entry.events_per_second} | ${entry.vs_sqlite ?? "–"} | ${entry.delay_p50_ms} ms | ${entry.delay_p99_ms} ms |`,
      );
    }
  }
  return `${lines.join("\n")}\n`;
}
