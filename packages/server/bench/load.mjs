#!/usr/bin/env node
// Server load benchmark: N sessions stream a task at once from fake-llm, each watched by one SSE
// client, in four configurations compared in one run:
//   1. one instance on SQLite;
//   2. one instance on PostgreSQL;
//   3. two instances on one PostgreSQL, sessions created and tasks started half through each, and
//      every SSE client connected to the instance that does NOT run its session, so every event
//      crosses the relay (LISTEN/NOTIFY) before it reaches a client;
//   4. as (3), with the traces in the database (`--traces database`) and a data root per instance:
//      every trace record also goes to PostgreSQL, and a tool waits for its dispatch to be stored.
// Reports per configuration the events per second delivered to the clients, the delay from a
// model chunk (the envelope timestamp the harness stamps when the chunk arrives from the model)
// to the SSE client that parses it, and the events/s against (1) of the same round. `--control`
// adds a fourth: two instances as in (3) but each client on the instance that runs its session,
// which tells the relay hop apart from the cost of two processes on the same cores. Loopback
// only; each server runs in a child process so the clients and the fake model do not share its
// event loop. PostgreSQL: a private one started for the run (initdb into a temp folder, removed
// at the end), or `--postgres-url` (a role allowed to create databases); without PostgreSQL
// binaries the PostgreSQL rows are skipped. Servers, databases and temp folders are removed
// however the run ends (error, SIGINT, SIGTERM, the hard limit); only a SIGKILL of the bench
// leaves its private PostgreSQL running (the servers follow their parent). Run after
// `pnpm turbo run build --filter=@penguin/server --filter=@penguin/fake-llm`:
//
//   node packages/server/bench/load.mjs [--sessions 50] [--chars 2000] [--chunk 16] [--delay-ms 5]
//     [--rounds 1] [--control] [--postgres-url URL] [--json]
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { exitCleanlyOn, runCleanups } from "./load/cleanup.mjs";
import { runConfiguration } from "./load/configuration.mjs";
import { findPostgresBinaries, startPrivatePostgres } from "./load/postgres.mjs";
import { markdownReport, medians, withRatios } from "./load/report.mjs";

/** One configuration's measurement stops the run after this long, whatever happens. */
const CONFIGURATION_LIMIT_MS = 180_000;
/** Room for starting the private PostgreSQL (its own start waits up to 120 s). */
const POSTGRES_START_LIMIT_MS = 150_000;

const { values } = parseArgs({
  options: {
    sessions: { type: "string", default: "50" },
    chars: { type: "string", default: "2000" },
    chunk: { type: "string", default: "16" },
    "delay-ms": { type: "string", default: "5" },
    rounds: { type: "string", default: "1" },
    "postgres-url": { type: "string" },
    control: { type: "boolean", default: false },
    json: { type: "boolean", default: false },
  },
});

function positiveInteger(name, { allowZero = false } = {}) {
  const value = Number(values[name]);
  if (!Number.isInteger(value) || value < (allowZero ? 0 : 1)) {
    process.stderr.write(
      `load benchmark: --${name} must be a ${allowZero ? "non-negative" : "positive"} integer\n`,
    );
    process.exit(2);
  }
  return value;
}

const load = {
  sessions: positiveInteger("sessions"),
  chars: positiveInteger("chars"),
  chunkSize: positiveInteger("chunk"),
  chunkDelayMs: positiveInteger("delay-ms", { allowZero: true }),
};
const rounds = positiveInteger("rounds");
const externalPostgres = values["postgres-url"];
if (externalPostgres !== undefined && !/^postgres(ql)?:\/\//.test(externalPostgres)) {
  process.stderr.write("load benchmark: --postgres-url must be a postgres:// URL\n");
  process.exit(2);
}

const postgresBin = externalPostgres === undefined ? findPostgresBinaries() : undefined;
const withPostgres = externalPostgres !== undefined || postgresBin !== undefined;
const perRound = withPostgres ? (values.control ? 5 : 4) : 1;
exitCleanlyOn({ limitMs: POSTGRES_START_LIMIT_MS + CONFIGURATION_LIMIT_MS * perRound * rounds });

const loadAtStart = loadavg()[0];
let postgres =
  "skipped: no PostgreSQL binaries (initdb, pg_ctl) in /usr/lib/postgresql/*/bin or on PATH; pass --postgres-url to use a running one";
try {
  let adminUrl = externalPostgres;
  if (postgresBin !== undefined) {
    adminUrl = await startPrivatePostgres(postgresBin);
    postgres = `private, ${postgresBin}`;
  } else if (externalPostgres !== undefined) {
    postgres = "--postgres-url";
  } else {
    process.stderr.write(`load benchmark: PostgreSQL rows ${postgres}\n`);
  }
  const configurations = [{ name: "sqlite", instances: 1 }];
  if (adminUrl !== undefined) {
    configurations.push(
      { name: "postgres", instances: 1, postgres: adminUrl },
      { name: "postgres-2-relayed", instances: 2, crossed: true, postgres: adminUrl },
      {
        name: "postgres-2-db-traces",
        instances: 2,
        crossed: true,
        postgres: adminUrl,
        traces: "database",
      },
    );
    if (values.control) configurations.push({ name: "postgres-2-local", instances: 2, postgres: adminUrl });
  }

  const measured = [];
  for (let round = 1; round <= rounds; round++) {
    // Each round starts with the next configuration, so none always runs first (or last).
    for (let i = 0; i < configurations.length; i++) {
      const configuration = configurations[(round - 1 + i) % configurations.length];
      measured.push(await runConfiguration(configuration, load, round));
    }
  }
  const rows = withRatios(measured);
  const summary = medians(rows);
  const loadAtEnd = loadavg()[0];
  const report = {
    date: new Date().toISOString(),
    node: process.version,
    load_1m: { start: Number(loadAtStart.toFixed(2)), end: Number(loadAtEnd.toFixed(2)) },
    postgres,
    sessions: load.sessions,
    chunks_per_task: Math.ceil(load.chars / load.chunkSize),
    chunk_delay_ms: load.chunkDelayMs,
    rows,
    summary,
  };
  if (values.json) {
    process.stdout.write(`${JSON.stringify(report)}\n`);
  } else {
    const header = [
      `${report.date}, Node ${report.node}, load average (1 min) ${report.load_1m.start} at the start, ${report.load_1m.end} at the end`,
      `${load.sessions} sessions, ${report.chunks_per_task} chunks of ${load.chunkSize} characters per task, ${load.chunkDelayMs} ms apart; PostgreSQL: ${postgres}`,
    ];
    process.stdout.write(markdownReport({ rows, summary, header }));
  }
} finally {
  await runCleanups();
}
