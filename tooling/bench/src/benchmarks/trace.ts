import { statSync } from "node:fs";
import { join } from "node:path";
import {
  approvalDecision,
  assistantText,
  type OmniMessage,
  requestBegin,
  requestEnd,
  sessionMeta,
  thinking,
  tokenUsage,
  toolCall,
  toolCallOutput,
  userText,
} from "@penguin/protocol";
import { readSession, rebuildContext, type TraceLocation, TraceWriter } from "@penguin/trace";
import type { Benchmark, BenchOptions } from "../benchmark.js";
import { median } from "../measure.js";
import type { BenchRow } from "../table.js";
import { makeBenchDirs } from "../workdir.js";

// Trace append throughput (page-cache and fsync-every-record durability) and the time to resume
// a session (readSession + rebuildContext), with records shaped like the engine's.

const SIZES = {
  full: { pageCache: 50_000, fsync: 2_000, resume: [10_000, 100_000], resumeRepeats: 3 },
  quick: { pageCache: 2_000, fsync: 100, resume: [1_000, 5_000], resumeRepeats: 1 },
};

const meta = (id: string) =>
  sessionMeta({
    session_id: id,
    provider: "openai",
    model_id: "bench-model",
    system_prompt: "You are a coding agent. ".repeat(80),
    workspace: "/home/user/project",
  });

const counts = (n: number) => ({ cache_read: n, cache_write: 0, output: 50, total: n + 50 });

/** One agent-loop request with a tool call, as the engine records it: 9 records, about 3 KB. */
function turn(i: number): OmniMessage[] {
  const id = `call_${i}`;
  return [
    userText(`Please look at file ${i} and fix the failing test. `.repeat(4)),
    requestBegin(),
    thinking("The test fails because the parser drops the last token; check the loop bound. ".repeat(5)),
    assistantText("I will read the file and run the tests. ".repeat(8)),
    toolCall("exec_command", { cmd: `sed -n 1,80p src/file${i}.ts && npm test`, timeout_ms: 30000 }, id),
    tokenUsage(counts(1000 + i), counts(1000 * (i + 1))),
    requestEnd("completed"),
    approvalDecision(id, "allow", { kind: "mode", name: "auto" }),
    toolCallOutput(id, "ok 1 - parses tokens\nnot ok 2 - keeps the last token\n".repeat(12)),
  ];
}

/** `count` records: a session_meta, then whole turns (the last one cut to fit). */
function records(count: number, id: string): OmniMessage[] {
  const out: OmniMessage[] = [meta(id)];
  for (let i = 0; out.length < count; i++) {
    for (const record of turn(i)) if (out.length < count) out.push(record);
  }
  return out;
}

function appendRate(loc: TraceLocation, id: string, count: number, fsync: boolean) {
  const recs = records(count, id);
  const writer = TraceWriter.create(loc, id, { fsync });
  const start = process.hrtime.bigint();
  for (const record of recs) writer.append(record);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  writer.close();
  return {
    perSecond: count / (ms / 1000),
    microsPerRecord: (ms * 1000) / count,
    bytes: statSync(writer.path).size,
  };
}

function resumeTime(loc: TraceLocation, count: number, repeats: number) {
  const id = `resume-${count}`;
  const writer = TraceWriter.create(loc, id);
  for (const record of records(count, id)) writer.append(record);
  writer.close();
  const reads: number[] = [];
  const rebuilds: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const t0 = process.hrtime.bigint();
    const session = readSession(loc, id);
    const t1 = process.hrtime.bigint();
    const state = rebuildContext(session.records);
    const t2 = process.hrtime.bigint();
    if (state.messages.length === 0) throw new Error(`resume of ${count} records rebuilt an empty context`);
    reads.push(Number(t1 - t0) / 1e6);
    rebuilds.push(Number(t2 - t1) / 1e6);
  }
  return { readMs: median(reads), rebuildMs: median(rebuilds), bytes: statSync(writer.path).size };
}

export const trace: Benchmark = {
  name: "trace",
  summary: "trace append records/s (page cache, fsync each record) and resume time at 10k and 100k records",
  async run({ quick }: BenchOptions): Promise<BenchRow[]> {
    const size = quick ? SIZES.quick : SIZES.full;
    const dirs = makeBenchDirs("trace");
    const loc: TraceLocation = {
      tracesDir: join(dirs.dataRoot, "traces"),
      scratchpadRoot: join(dirs.dataRoot, "scratchpad"),
    };
    const f = (n: number) => n.toLocaleString("en-US");
    try {
      const pageCache = appendRate(loc, "append-page-cache", size.pageCache, false);
      const fsync = appendRate(loc, "append-fsync", size.fsync, true);
      const rows: BenchRow[] = [
        {
          benchmark: this.name,
          metric: `append, page cache (${f(size.pageCache)} records)`,
          value: pageCache.perSecond,
          unit: "records/s",
        },
        {
          benchmark: this.name,
          metric: "append, page cache",
          value: pageCache.microsPerRecord,
          unit: "µs/record",
        },
        {
          benchmark: this.name,
          metric: `append, fsync each record (${f(size.fsync)})`,
          value: fsync.perSecond,
          unit: "records/s",
        },
        {
          benchmark: this.name,
          metric: "append, fsync each record",
          value: fsync.microsPerRecord,
          unit: "µs/record",
        },
        {
          benchmark: this.name,
          metric: "average record size",
          value: pageCache.bytes / size.pageCache,
          unit: "bytes",
        },
      ];
      for (const count of size.resume) {
        const resume = resumeTime(loc, count, size.resumeRepeats);
        const label = `resume ${f(count)} records (${(resume.bytes / 1e6).toFixed(1)} MB)`;
        rows.push(
          { benchmark: this.name, metric: `${label}: read + validate`, value: resume.readMs, unit: "ms" },
          { benchmark: this.name, metric: `${label}: rebuildContext`, value: resume.rebuildMs, unit: "ms" },
          {
            benchmark: this.name,
            metric: `${label}: total`,
            value: resume.readMs + resume.rebuildMs,
            unit: "ms",
          },
        );
      }
      return rows;
    } finally {
      dirs.cleanup();
    }
  },
};
