import { existsSync, mkdtempSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type RecordedRequest, type ScriptTurnInput, startFakeLlm } from "@penguin/fake-llm";
import type { Benchmark, BenchOptions } from "../benchmark.js";
import { MiB, median, timeMs } from "../measure.js";
import { nodeStartEnv } from "../node-start-env.js";
import { penguinBin } from "../penguin-bin.js";
import { type ProcessCpu, processCpu } from "../process-cpu.js";
import { sampleTreeRss, type TreeRssSampler } from "../process-tree.js";
import { runProcess, runProcessOk } from "../processes.js";
import type { BenchRow } from "../table.js";
import { makeBenchDirs } from "../workdir.js";

// The built CLI end to end: `penguin run` against fake-llm (no latency) for N rounds of
// `echo round-$i` and a final answer, beside a bare loop written for the bench (Chat Completions
// over fetch, one `bash -c` per call, nothing else) and `node -e 0`, interleaved in one run.

const FULL_ROUNDS = 20;
const QUICK_ROUNDS = 5;
const FULL_RUNS = 5;
/**
 * More runs for a comparison of two builds: single runs on a shared machine move by 1.3 - 1.5 x,
 * and five medians do not separate a 10 % change from that.
 */
const RUNS_ENV = "BENCH_END_TO_END_RUNS";
/**
 * More rounds for a figure of the steady round: the first round (work done once, on the first tool
 * call) weighs 1/20 of "per round" at the default, and less in a longer run.
 */
const ROUNDS_ENV = "BENCH_END_TO_END_ROUNDS";

/** A whole number of at least 1 from `env[name]`, else `fallback` when it is unset. */
function countFromEnv(env: NodeJS.ProcessEnv, name: string, what: string, fallback: number): number {
  const chosen = env[name];
  if (chosen === undefined || chosen === "") return fallback;
  const count = Number(chosen);
  if (!Number.isInteger(count) || count < 1)
    throw new Error(`${name} must be a whole number of ${what}, not "${chosen}"`);
  return count;
}
/**
 * Another build's `dist/bin.cjs` (a worktree of an earlier commit, installed and built), run
 * interleaved with this build's in the same run: two builds measured in separate runs differ by
 * the machine's load as much as by their code.
 */
const BASELINE_ENV = "BENCH_END_TO_END_BASELINE";

/** The baseline build's binary named by `env`, if any; a name of no file is refused. */
function baselineFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  const chosen = env[BASELINE_ENV];
  if (chosen === undefined || chosen === "") return undefined;
  const bin = resolve(chosen);
  if (!existsSync(bin)) throw new Error(`${BASELINE_ENV} names no file: ${bin}`);
  return bin;
}
const QUICK_RUNS = 1;
const API_KEY = "sk-bench-end-to-end";
const MODEL_ID = "fake-model";

/** `scripts/bare-loop.mjs` of this package (the bundle runs from `dist/`). */
function bareLoopScript(): string {
  return join(dirname(fileURLToPath(import.meta.url)), "..", "scripts", "bare-loop.mjs");
}

function script(rounds: number): ScriptTurnInput[] {
  const turns: ScriptTurnInput[] = [];
  for (let i = 0; i < rounds; i++) {
    const cmd = `echo round-${i}`;
    turns.push({ tool_calls: [{ name: "exec_command", arguments: { description: `round ${i}`, cmd } }] });
  }
  turns.push({ text: "All rounds done." });
  return turns;
}

/** What one run of a loop (Penguin's or the bare one) did, in the bench's own clock. */
interface LoopRun {
  toFirstRequestMs: number;
  /** From the first model request to the last, divided by the rounds. */
  perRoundMs: number;
  /** From the first request to the second: work done once, on the first tool call, lands here. */
  firstRoundMs: number;
  /** The median of the rounds (request to next request): the steady cost of one more round. */
  medianRoundMs: number;
  peakRssBytes: number;
  /** The loop's own process, without the shells it started. */
  peakRootRssBytes: number;
  firstRequestBytes: number;
  allRequestsBytes: number;
  /**
   * CPU time per round, from the first model request to the last: the loop's own work, which a
   * busy machine does not stretch the way it stretches the wall-clock figures. Undefined where
   * /proc gives no thread times.
   */
  cpuPerRound: CpuPerRound | undefined;
}

interface CpuPerRound {
  /** The main thread's, where the JavaScript runs. */
  mainMs: number;
  /** All the process's threads' together. */
  allMs: number;
}

interface Arrival {
  atNs: bigint;
  request: RecordedRequest;
  /**
   * The loop's CPU time as its request arrived (it is then waiting for the answer); read for the
   * first and the last request only.
   */
  cpu: ProcessCpu | undefined;
}

export const endToEnd: Benchmark = {
  name: "end_to_end",
  summary:
    "built penguin run (echo rounds vs zero-latency fake-llm) against a bare fetch loop and node -e 0: " +
    "per-round overhead, start to first request, peak RSS, request bytes, --version/--help",
  async run({ quick }: BenchOptions): Promise<BenchRow[]> {
    const rounds = quick ? QUICK_ROUNDS : countFromEnv(process.env, ROUNDS_ENV, "rounds", FULL_ROUNDS);
    const runs = quick ? QUICK_RUNS : countFromEnv(process.env, RUNS_ENV, "runs", FULL_RUNS);
    const baselineBin = baselineFromEnv(process.env);
    const dirs = makeBenchDirs("end-to-end");
    let arrivals: Arrival[] = [];
    /** The process of the loop being run. */
    let loopPid: number | undefined;
    const llm = await startFakeLlm({
      apiKey: API_KEY,
      onRequest: (request) => {
        const atNs = process.hrtime.bigint();
        // Read at the first and the last request only, the two that "per round" spans: a reading
        // (a file per thread of the loop) takes some 0.3 ms, and fake-llm answers after it.
        const spanEnd = arrivals.length === 0 || arrivals.length === rounds;
        const cpu = spanEnd && loopPid !== undefined ? processCpu(loopPid) : undefined;
        arrivals.push({ atNs, request, cpu });
      },
    });
    const bin = penguinBin();
    /**
     * A fresh, empty HOME for every process (no profile, no earlier data root), unless `home` is
     * given: the HOME that `penguin run` has run in before, as every run after a user's first has.
     */
    const freshEnv = (home?: string): NodeJS.ProcessEnv => {
      const env = nodeStartEnv({
        HOME: home ?? mkdtempSync(join(dirs.root, "home-")),
        NO_COLOR: "1",
        OPENAI_API_KEY: API_KEY,
        OPENAI_BASE_URL: `${llm.url}/v1`,
      });
      delete env.PENGUIN_HOME;
      delete env.PENGUIN_LOG;
      return env;
    };

    const runLoop = async (label: string, args: string[], home?: string): Promise<LoopRun> => {
      llm.setScript(script(rounds));
      arrivals = [];
      let sampler: TreeRssSampler | undefined;
      const start = process.hrtime.bigint();
      const exit = await runProcess(process.execPath, args, {
        env: freshEnv(home),
        cwd: dirs.workspace,
        stdout: "discard",
        onSpawn: (pid) => {
          loopPid = pid;
          sampler = sampleTreeRss(pid);
        },
      });
      loopPid = undefined;
      const peak = sampler?.stop() ?? { treeBytes: 0, rootBytes: 0 };
      if (exit.code !== 0) throw new Error(`${label} exited with ${exit.code}: ${exit.stderr.trim()}`);
      const answered = arrivals.filter((arrival) => arrival.request.outcome === "answered");
      if (answered.length !== rounds + 1 || arrivals.length !== rounds + 1) {
        throw new Error(
          `${label} made ${arrivals.length} model requests (${answered.length} answered), not ${rounds + 1}`,
        );
      }
      // The last request carries the last command's output as well as its call.
      const last = arrivals[rounds].request.rawBody;
      if (last.split(`round-${rounds - 1}`).length < 3) {
        throw new Error(`${label}: the last request does not carry the output of echo round-${rounds - 1}`);
      }
      const ms = (ns: bigint) => Number(ns) / 1e6;
      const bytes = arrivals.map((arrival) => Buffer.byteLength(arrival.request.rawBody));
      return {
        toFirstRequestMs: ms(arrivals[0].atNs - start),
        perRoundMs: ms(arrivals[rounds].atNs - arrivals[0].atNs) / rounds,
        firstRoundMs: ms(arrivals[1].atNs - arrivals[0].atNs),
        medianRoundMs: median(arrivals.slice(1).map((arrival, i) => ms(arrival.atNs - arrivals[i].atNs))),
        peakRssBytes: peak.treeBytes,
        peakRootRssBytes: peak.rootBytes,
        firstRequestBytes: bytes[0],
        allRequestsBytes: bytes.reduce((sum, n) => sum + n, 0),
        cpuPerRound: cpuPerRound(arrivals[0].cpu, arrivals[rounds].cpu, rounds),
      };
    };

    const penguinArgs = [
      bin,
      "run",
      "--model",
      `openai/${MODEL_ID}`,
      "-w",
      dirs.workspace,
      "-m",
      "Run the rounds.",
    ];
    const baselineArgs = baselineBin === undefined ? undefined : [baselineBin, ...penguinArgs.slice(1)];
    const loopArgs = [bareLoopScript(), `${llm.url}/v1`, MODEL_ID, "Run the rounds."];
    const quiet = (args: string[]) => () =>
      runProcessOk(process.execPath, args, { env: freshEnv(), stdout: "discard" });

    try {
      // Warm-up: the page cache holds Node, the bundle and bash before anything is timed.
      await runLoop("penguin run", penguinArgs);
      await runLoop("bare loop", loopArgs);
      if (baselineArgs) await runLoop("baseline build", baselineArgs);
      // Its first run creates the default agent; the timed runs in this HOME find it there.
      const laterHome = mkdtempSync(join(dirs.root, "home-later-"));
      await runLoop("penguin run, later run", penguinArgs, laterHome);
      const node: number[] = [];
      const version: number[] = [];
      const help: number[] = [];
      const penguin: LoopRun[] = [];
      const loop: LoopRun[] = [];
      const later: LoopRun[] = [];
      const baseline: LoopRun[] = [];
      // Interleaved, so a burst of load from another job on the shared machine hits every side alike.
      for (let i = 0; i < runs; i++) {
        node.push(await timeMs(quiet(["-e", "0"])));
        version.push(await timeMs(quiet([bin, "--version"])));
        help.push(await timeMs(quiet([bin, "--help"])));
        loop.push(await runLoop("bare loop", loopArgs));
        penguin.push(await runLoop("penguin run", penguinArgs));
        later.push(await runLoop("penguin run, later run", penguinArgs, laterHome));
        if (baselineArgs) baseline.push(await runLoop("baseline build", baselineArgs));
      }
      return rows(this.name, { rounds, runs, node, version, help, penguin, loop, later, baseline });
    } finally {
      await llm.close();
      dirs.cleanup();
    }
  },
};

interface Samples {
  rounds: number;
  runs: number;
  node: number[];
  version: number[];
  help: number[];
  /** `penguin run` in a fresh HOME, as a user's first run. */
  penguin: LoopRun[];
  /** `penguin run` in a HOME it has run in before (its default agent in place). */
  later: LoopRun[];
  loop: LoopRun[];
  /** `penguin run` of the baseline build, in a fresh HOME; empty without one. */
  baseline: LoopRun[];
}

/** CPU milliseconds per round between two readings, if both were taken. */
function cpuPerRound(
  first: ProcessCpu | undefined,
  last: ProcessCpu | undefined,
  rounds: number,
): CpuPerRound | undefined {
  if (first === undefined || last === undefined) return undefined;
  return {
    mainMs: (last.mainNs - first.mainNs) / 1e6 / rounds,
    allMs: (last.allNs - first.allNs) / 1e6 / rounds,
  };
}

/** The median of one figure over runs. */
function medianOf(runs: LoopRun[], pick: (run: LoopRun) => number): number {
  return median(runs.map(pick));
}

function rows(benchmark: string, s: Samples): BenchRow[] {
  const nodeMs = median(s.node);
  const versionRatio = median(s.version) / nodeMs;
  const helpRatio = median(s.help) / nodeMs;
  const toRequest = medianOf(s.penguin, (run) => run.toFirstRequestMs);
  const laterToRequest = medianOf(s.later, (run) => run.toFirstRequestMs);
  const perRound = medianOf(s.penguin, (run) => run.perRoundMs);
  const loopPerRound = medianOf(s.loop, (run) => run.perRoundMs);
  const perRoundRatio = perRound / loopPerRound;
  const peakRss = medianOf(s.penguin, (run) => run.peakRssBytes) / MiB;
  const row = (metric: string, value: number, unit: string, target?: [string, boolean]): BenchRow => ({
    benchmark,
    metric,
    value,
    unit,
    ...(target ? { target: target[0], ok: target[1] } : {}),
  });
  /** The same figure of the bare loop and of `penguin run`, in that order. */
  const bothLoops = (metric: string, pick: (run: LoopRun) => number, unit: string): BenchRow[] => [
    row(`bare loop: ${metric}`, medianOf(s.loop, pick), unit),
    row(`penguin run: ${metric}`, medianOf(s.penguin, pick), unit),
  ];
  return [
    row(`node -e 0 (median of ${s.runs})`, nodeMs, "ms"),
    row("penguin --version", median(s.version), "ms"),
    row("penguin --version / node -e 0", versionRatio, "ratio", ["<= 1.5", versionRatio <= 1.5]),
    row("penguin --help", median(s.help), "ms"),
    row("penguin --help / node -e 0", helpRatio, "ratio", ["<= 1.5", helpRatio <= 1.5]),
    ...bothLoops("start to first request", (run) => run.toFirstRequestMs, "ms"),
    // What `fetch` alone costs a start: the bare loop is little more than one request.
    row(
      "bare loop to first request / node -e 0",
      medianOf(s.loop, (run) => run.toFirstRequestMs) / nodeMs,
      "ratio",
    ),
    row("penguin run to first request / node -e 0", toRequest / nodeMs, "ratio", [
      "<= 2.5",
      toRequest / nodeMs <= 2.5,
    ]),
    row("penguin run, later run: start to first request", laterToRequest, "ms"),
    row("penguin run, later run, to first request / node -e 0", laterToRequest / nodeMs, "ratio", [
      "<= 2.5",
      laterToRequest / nodeMs <= 2.5,
    ]),
    ...bothLoops(`per round (${s.rounds} rounds)`, (run) => run.perRoundMs, "ms"),
    {
      // A difference of two medians: on a noisy machine it can come out below zero.
      ...row("penguin overhead per round over the bare loop", perRound - loopPerRound, "ms"),
      signed: true,
    },
    ...bothLoops("first round", (run) => run.firstRoundMs, "ms"),
    ...bothLoops("median round", (run) => run.medianRoundMs, "ms"),
    row("penguin per round / bare loop per round", perRoundRatio, "ratio", ["<= 1.3", perRoundRatio <= 1.3]),
    ...cpuRows(s, row),
    row("bare loop: peak RSS of the process tree", medianOf(s.loop, (run) => run.peakRssBytes) / MiB, "MiB"),
    row("penguin run: peak RSS of the process tree", peakRss, "MiB", ["<= 100", peakRss <= 100]),
    row(
      "penguin run: peak RSS of its own process",
      medianOf(s.penguin, (run) => run.peakRootRssBytes) / MiB,
      "MiB",
    ),
    ...bothLoops("bytes of the first request", (run) => run.firstRequestBytes, "bytes"),
    ...bothLoops("bytes of all requests", (run) => run.allRequestsBytes, "bytes"),
    ...(s.baseline.length > 0 ? baselineRows(s, row) : []),
  ];
}

/**
 * The CPU each loop's process spends per round (its shells not counted): its main thread's, where
 * the JavaScript runs, and all its threads'. No rows where /proc gave no thread times.
 */
function cpuRows(s: Samples, row: (metric: string, value: number, unit: string) => BenchRow): BenchRow[] {
  const loop = s.loop.map((run) => run.cpuPerRound);
  const penguin = s.penguin.map((run) => run.cpuPerRound);
  if (!allTaken(loop) || !allTaken(penguin)) return [];
  const loopMain = median(loop.map((cpu) => cpu.mainMs));
  const penguinMain = median(penguin.map((cpu) => cpu.mainMs));
  return [
    row("bare loop: CPU per round, main thread", loopMain, "ms"),
    row("penguin run: CPU per round, main thread", penguinMain, "ms"),
    row("bare loop: CPU per round, all threads", median(loop.map((cpu) => cpu.allMs)), "ms"),
    row("penguin run: CPU per round, all threads", median(penguin.map((cpu) => cpu.allMs)), "ms"),
    row("penguin main-thread CPU per round / bare loop's", penguinMain / loopMain, "ratio"),
  ];
}

function allTaken(readings: (CpuPerRound | undefined)[]): readings is CpuPerRound[] {
  return readings.every((reading) => reading !== undefined);
}

/** This build beside the baseline build, run for run: their figures and this build's share of its. */
function baselineRows(
  s: Samples,
  row: (metric: string, value: number, unit: string) => BenchRow,
): BenchRow[] {
  const figures: [string, (run: LoopRun) => number][] = [
    ["start to first request", (run) => run.toFirstRequestMs],
    [`per round (${s.rounds} rounds)`, (run) => run.perRoundMs],
    ["first round", (run) => run.firstRoundMs],
    ["median round", (run) => run.medianRoundMs],
  ];
  return [
    ...figures.flatMap(([metric, pick]) => [
      row(`baseline build: ${metric}`, medianOf(s.baseline, pick), "ms"),
      row(
        `penguin run / baseline build: ${metric}`,
        medianOf(s.penguin, pick) / medianOf(s.baseline, pick),
        "ratio",
      ),
    ]),
    row(
      "baseline build: peak RSS of the process tree",
      medianOf(s.baseline, (run) => run.peakRssBytes) / MiB,
      "MiB",
    ),
  ];
}
