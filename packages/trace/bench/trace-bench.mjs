#!/usr/bin/env node
// Trace benchmarks: append throughput (page-cache and fsync durability) and resume time.
// Run after a build:  node packages/trace/bench/trace-bench.mjs [--dir <folder>] [--json]
// --dir picks the filesystem to measure (default: the OS temp folder); --json prints one JSON object.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import {
  approvalDecision,
  assistantText,
  requestBegin,
  requestEnd,
  sessionMeta,
  thinking,
  tokenUsage,
  toolCall,
  toolCallOutput,
  userText,
} from "@penguin/protocol";
import { readSession, rebuildContext, TraceWriter } from "../dist/index.js";

const PAGE_CACHE_RECORDS = 50_000;
const FSYNC_RECORDS = 2_000;
const RESUME_SIZES = [10_000, 100_000];
const RESUME_REPEATS = 3;

const args = process.argv.slice(2);
const dirArg = args.includes("--dir") ? args[args.indexOf("--dir") + 1] : tmpdir();
const asJson = args.includes("--json");
const root = mkdtempSync(join(dirArg, "penguin-trace-bench-"));
const loc = { tracesDir: join(root, "traces"), scratchpadRoot: join(root, "scratchpad") };

const meta = (id) =>
  sessionMeta({
    session_id: id,
    provider: "openai",
    model_id: "bench-model",
    system_prompt: "You are a coding agent. ".repeat(80),
    workspace: "/home/user/project",
  });

const counts = (n) => ({ cache_read: n, cache_write: 0, output: 50, total: n + 50 });

/** One agent-loop request with a tool call, as the engine records it: 9 records, about 3 KB. */
function turn(i) {
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

/** `count` records: a session_meta, then whole turns. */
function records(count, id) {
  const out = [meta(id)];
  for (let i = 0; out.length < count; i++) for (const r of turn(i)) if (out.length < count) out.push(r);
  return out;
}

function bytesOf(path) {
  return statSync(path).size;
}

function appendBench(id, count, fsync) {
  const recs = records(count, id);
  const writer = TraceWriter.create(loc, id, { fsync });
  const start = process.hrtime.bigint();
  for (const r of recs) writer.append(r);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  writer.close();
  const bytes = bytesOf(writer.path);
  return { count, ms, perSecond: count / (ms / 1000), mbPerSecond: bytes / 1e6 / (ms / 1000), bytes };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function resumeBench(count) {
  const id = `resume-${count}`;
  const writer = TraceWriter.create(loc, id);
  for (const r of records(count, id)) writer.append(r);
  writer.close();
  const reads = [];
  const rebuilds = [];
  let messages = 0;
  for (let i = 0; i < RESUME_REPEATS; i++) {
    const t0 = process.hrtime.bigint();
    const session = readSession(loc, id);
    const t1 = process.hrtime.bigint();
    const state = rebuildContext(session.records);
    const t2 = process.hrtime.bigint();
    reads.push(Number(t1 - t0) / 1e6);
    rebuilds.push(Number(t2 - t1) / 1e6);
    messages = state.messages.length;
  }
  const read = median(reads);
  const rebuild = median(rebuilds);
  return {
    count,
    bytes: bytesOf(writer.path),
    readMs: read,
    rebuildMs: rebuild,
    totalMs: read + rebuild,
    messages,
  };
}

try {
  const pageCache = appendBench("append-page-cache", PAGE_CACHE_RECORDS, false);
  const fsync = appendBench("append-fsync", FSYNC_RECORDS, true);
  const resume = RESUME_SIZES.map(resumeBench);
  const env = { node: process.version, cpu: cpus()[0]?.model ?? "?", cpus: cpus().length, dir: dirArg };
  if (asJson) {
    console.log(JSON.stringify({ env, append: { pageCache, fsync }, resume }));
  } else {
    const f = (n, d = 0) => n.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d });
    console.log(`trace benchmarks: node ${env.node}, ${env.cpus} x ${env.cpu}, files in ${env.dir}\n`);
    console.log("| append (durability) | records | records/s | MB/s | µs/record |");
    console.log("|---|---:|---:|---:|---:|");
    for (const [name, r] of [
      ["page cache (survives a process crash)", pageCache],
      ["fsync each record (survives power loss)", fsync],
    ]) {
      console.log(
        `| ${name} | ${f(r.count)} | ${f(r.perSecond)} | ${f(r.mbPerSecond, 1)} | ${f((r.ms * 1000) / r.count, 1)} |`,
      );
    }
    console.log(
      "\n| resume (readSession + rebuildContext) | trace size | read + validate ms | rebuild ms | total ms | context messages |",
    );
    console.log("|---|---:|---:|---:|---:|---:|");
    for (const r of resume) {
      console.log(
        `| ${f(r.count)} records | ${f(r.bytes / 1e6, 1)} MB | ${f(r.readMs)} | ${f(r.rebuildMs)} | ${f(r.totalMs)} | ${f(r.messages)} |`,
      );
    }
    console.log(
      `\n(medians of ${RESUME_REPEATS} resumes; records average ${f(pageCache.bytes / pageCache.count)} bytes)`,
    );
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
