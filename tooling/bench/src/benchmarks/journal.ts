import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createAgent, type Environment } from "@penguin/core";
import {
  approvalDecision,
  type OmniMessage,
  requestBegin,
  requestEnd,
  sessionMeta,
  tokenUsage,
  toolCall,
  toolCallOutput,
  toolDispatched,
  toolEffect,
  userText,
} from "@penguin/protocol";
import { readSession, rebuildContext, type TraceLocation, TraceWriter, toolJournal } from "@penguin/trace";
import type { Benchmark, BenchOptions } from "../benchmark.js";
import { callTool, defaultEnvironment } from "../environment.js";
import { useFakeModel } from "../fake-model.js";
import { median } from "../measure.js";
import type { BenchRow } from "../table.js";
import { makeBenchDirs } from "../workdir.js";

// The journal of tool calls ("Work that survives a crash"): what journaling costs per call, and
// how long a session with many journaled calls takes to open.
//
// Cost per call: write_file of a small file through the Environment, with the engine's journal
// (each `tool_dispatched` and `tool_effect` appended to a real trace as the turn does) and without
// it, in alternating blocks so load hits both sides alike. Target: "the cost of journaling per
// tool call (must stay under 1 ms median on this machine; measure with and without)". Also with
// `fsync` on (the trace's survive-a-power-cut setting).
//
// Opening: a trace of N rounds of one journaled call each (intent, decision, dispatch, effect,
// result), opened by readSession + rebuildContext + toolJournal, and through the SDK
// (`agent.resumeSession`, everything a resume does before the first request).

const SIZES = {
  full: { calls: 2_000, block: 50, openCalls: 10_000, openRepeats: 3 },
  quick: { calls: 100, block: 10, openCalls: 500, openRepeats: 1 },
};

/** Per-call wall times of write_file through the Environment, journaled into `writer` or not. */
async function writeCallTimes(
  environment: Environment,
  dir: string,
  journal?: (message: OmniMessage) => void,
) {
  let n = 0;
  return async (): Promise<number> => {
    n += 1;
    const path = join(dir, `file-${n % 20}.txt`);
    const start = process.hrtime.bigint();
    const output = await callTool(
      environment,
      "write_file",
      { file_path: path, content: `line ${n}\n`.repeat(20) },
      journal,
    );
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (output.stop_reason !== "completed")
      throw new Error(`write_file failed: ${output.output.slice(0, 300)}`);
    return ms;
  };
}

async function journalCost(
  environment: Environment,
  loc: TraceLocation,
  dir: string,
  fsync: boolean,
  size: typeof SIZES.full,
) {
  const writer = TraceWriter.create(loc, fsync ? "journal-fsync" : "journal-cache", { fsync });
  writer.append(meta(writer.sessionId));
  const plain = await writeCallTimes(environment, dir);
  const journaled = await writeCallTimes(environment, dir, (message) => writer.append(message));
  const without: number[] = [];
  const withJournal: number[] = [];
  const calls = fsync ? Math.max(size.block * 2, size.calls / 10) : size.calls;
  for (let done = 0; done < calls; done += size.block * 2) {
    for (let i = 0; i < size.block; i++) without.push(await plain());
    for (let i = 0; i < size.block; i++) withJournal.push(await journaled());
  }
  writer.close();
  const records = readSession(loc, writer.sessionId).records;
  const dispatched = records.filter((record) => record.payload.type === "tool_dispatched").length;
  if (dispatched !== withJournal.length) {
    throw new Error(`expected ${withJournal.length} tool_dispatched records, found ${dispatched}`);
  }
  return { without: median(without), with: median(withJournal), calls: withJournal.length };
}

function meta(id: string, workspace = "/"): OmniMessage {
  return sessionMeta({
    session_id: id,
    provider: "fake",
    model_id: "fake-model",
    system_prompt: "You are a coding agent. ".repeat(80),
    workspace,
  });
}

const HASH_BEFORE = "1".repeat(64);
const HASH_AFTER = "2".repeat(64);
const counts = (n: number) => ({ cache_read: n, cache_write: 0, output: 50, total: n + 50 });

/** One round with one journaled call, as the engine records it. */
function round(i: number): OmniMessage[] {
  const id = `call_${i}`;
  const path = `/home/user/project/src/file${i % 100}.ts`;
  return [
    requestBegin(),
    toolCall("write_file", { file_path: path, content: `export const value${i} = ${i};\n`.repeat(4) }, id),
    tokenUsage(counts(1000 + i), counts(1000 * (i + 1))),
    requestEnd("completed"),
    approvalDecision(id, "allow", { kind: "mode", name: "auto" }),
    toolDispatched({ tool_call_id: id, name: "write_file", read_only: false }),
    toolEffect({ tool_call_id: id, files: [{ path, before_sha256: HASH_BEFORE, after_sha256: HASH_AFTER }] }),
    toolCallOutput(id, `Wrote ${path} (4 lines).`),
  ];
}

function writeJournaledSession(loc: TraceLocation, id: string, calls: number, workspace: string): number {
  const writer = TraceWriter.create(loc, id);
  writer.append(meta(id, workspace));
  writer.append(userText("Rewrite every file."));
  let records = 2;
  for (let i = 0; i < calls; i++) {
    for (const record of round(i)) {
      writer.append(record);
      records += 1;
    }
  }
  writer.close();
  return records;
}

export const journal: Benchmark = {
  name: "journal",
  summary:
    "journaling cost per tool call (with vs without, page cache and fsync) and opening a session of 10k journaled calls",
  async run({ quick }: BenchOptions): Promise<BenchRow[]> {
    const size = quick ? SIZES.quick : SIZES.full;
    const dirs = makeBenchDirs("journal");
    const loc: TraceLocation = {
      tracesDir: join(dirs.dataRoot, "traces"),
      scratchpadRoot: join(dirs.dataRoot, "scratchpad"),
    };
    const environment = defaultEnvironment(dirs);
    try {
      const cache = await journalCost(environment, loc, dirs.workspace, false, size);
      const fsync = await journalCost(environment, loc, dirs.workspace, true, size);

      const id = "journal-open";
      const recordCount = writeJournaledSession(loc, id, size.openCalls, dirs.workspace);
      const reads: number[] = [];
      for (let i = 0; i < size.openRepeats; i++) {
        const start = process.hrtime.bigint();
        const records = readSession(loc, id).records;
        const state = rebuildContext(records);
        const entries = toolJournal(records);
        reads.push(Number(process.hrtime.bigint() - start) / 1e6);
        if (entries.length !== size.openCalls || state.messages.length === 0) {
          throw new Error(`opened ${entries.length} journal entries of ${size.openCalls}`);
        }
      }
      writeFileSync(join(dirs.workspace, ".keep"), "");
      await useFakeModel(dirs.dataRoot, "http://127.0.0.1:9");
      const agent = await createAgent({ dataRoot: dirs.dataRoot, logger: { warn: () => {} } });
      const opens: number[] = [];
      for (let i = 0; i < size.openRepeats; i++) {
        const start = process.hrtime.bigint();
        const session = await agent.resumeSession(id);
        opens.push(Number(process.hrtime.bigint() - start) / 1e6);
        await session.dispose();
      }
      const f = (n: number) => n.toLocaleString("en-US");
      // The costs are differences of two medians: noise can make them negative.
      const row = (metric: string, value: number, unit: string, under?: number): BenchRow => ({
        benchmark: this.name,
        metric,
        value,
        unit,
        ...(under !== undefined ? { target: `< ${under}`, ok: value < under } : {}),
        ...(metric.startsWith("journal cost") ? { signed: true } : {}),
      });
      return [
        row(`write_file, no journal (median of ${f(cache.calls)})`, cache.without, "ms"),
        row("write_file, journaled (page cache)", cache.with, "ms"),
        row("journal cost per call (page cache)", cache.with - cache.without, "ms", 1),
        row(`write_file, journaled with fsync (median of ${f(fsync.calls)})`, fsync.with, "ms"),
        row("journal cost per call (fsync each record)", fsync.with - fsync.without, "ms"),
        row(
          `open: read + rebuild + journal (${f(size.openCalls)} calls, ${f(recordCount)} records)`,
          median(reads),
          "ms",
        ),
        row(`open: agent.resumeSession (${f(size.openCalls)} calls)`, median(opens), "ms"),
      ];
    } finally {
      await environment.dispose();
      dirs.cleanup();
    }
  },
};
