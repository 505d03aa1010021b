import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { penguinBin } from "../src/penguin-bin.js";
import { BENCHMARKS } from "../src/registry.js";
import type { BenchRow } from "../src/table.js";

// Every benchmark runs in --quick mode through the built runner (the same path `pnpm bench`
// takes: one child process per benchmark) and yields its rows. No figure is compared with a
// threshold here: speed targets are for the benchmark report, never for a test.

const run = promisify(execFile);
const RUNNER = resolve(import.meta.dirname, "../dist/index.js");
const BENCHMARK_TIMEOUT_MS = 45_000;

interface JsonReport {
  environment: { node: string; quick: boolean };
  rows: BenchRow[];
  failures: { benchmark: string; error: string }[];
}

async function runner(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [RUNNER, ...args], {
      timeout: BENCHMARK_TIMEOUT_MS,
      env,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
  }
}

describe("each benchmark in --quick mode", () => {
  for (const benchmark of BENCHMARKS) {
    it(
      `${benchmark.name} produces rows with finite figures, each measurement positive`,
      async () => {
        const result = await runner(["--quick", "--json", benchmark.name]);
        expect(result.stderr).not.toMatch(/FAILED/);
        expect(result.code).toBe(0);
        const report = JSON.parse(result.stdout) as JsonReport;
        expect(report.failures).toEqual([]);
        expect(report.environment.quick).toBe(true);
        expect(report.rows.length).toBeGreaterThan(0);
        for (const row of report.rows) {
          expect(row.benchmark).toBe(benchmark.name);
          expect(row.metric.length).toBeGreaterThan(0);
          expect(row.unit.length).toBeGreaterThan(0);
          expect(Number.isFinite(row.value), `${row.metric} = ${row.value}`).toBe(true);
          // Memory growth is a difference of two samples and may be negative; a count may be zero;
          // all else is a measurement.
          if (row.count) expect(Number.isInteger(row.value) && row.value >= 0, row.metric).toBe(true);
          else if (!row.signed) expect(row.value, row.metric).toBeGreaterThan(0);
          if (row.target !== undefined) expect(typeof row.ok).toBe("boolean");
        }
      },
      BENCHMARK_TIMEOUT_MS,
    );
  }
});

describe("the runner", () => {
  it("prints a Markdown table headed by the machine and the date (options after pnpm's literal --)", async () => {
    const result = await runner(["--", "--quick", "request_size"]);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split("\n");
    expect(lines[0]).toMatch(
      /^_\d{4}-\d{2}-\d{2}, Node v\d+\.\d+\.\d+, \d+ × .*, load average \d+\.\d, --quick/,
    );
    expect(lines[2]).toMatch(/^\| benchmark +\| metric +\| value +\| unit +\| target +\| ok +\|$/);
    expect(lines[3]).toMatch(/^\| -+ \| -+ \|/);
    expect(lines.slice(4).every((line) => line.startsWith("| request_size "))).toBe(true);
  });

  it("refuses an unknown benchmark name with exit code 2 and lists the known ones", async () => {
    const result = await runner(["--quick", "no_such_benchmark"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown benchmark "no_such_benchmark"');
    for (const benchmark of BENCHMARKS) expect(result.stderr).toContain(benchmark.name);
    expect(result.stdout).toBe("");
  });

  it("refuses an unknown option with exit code 2", async () => {
    const result = await runner(["--fast"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/Unknown option '--fast'/);
  });

  it(
    "end_to_end compares with a baseline build run beside this one, and refuses a baseline that is not there",
    async () => {
      // The same build as its own baseline: the rows are there, with figures of both runs.
      const compared = await runner(["--quick", "--json", "end_to_end"], {
        ...process.env,
        BENCH_END_TO_END_BASELINE: penguinBin(),
      });
      expect(compared.code).toBe(0);
      const rows = (JSON.parse(compared.stdout) as JsonReport).rows;
      const value = (metric: string) => rows.find((row) => row.metric === metric)?.value;
      for (const metric of [
        "baseline build: start to first request",
        "baseline build: per round (5 rounds)",
        "penguin run / baseline build: per round (5 rounds)",
        "baseline build: peak RSS of the process tree",
      ]) {
        expect(value(metric), metric).toBeGreaterThan(0);
      }
      // Where /proc has thread times, each loop's CPU per round is there, its main thread's within all.
      if (existsSync("/proc/self/schedstat")) {
        for (const loop of ["bare loop", "penguin run"]) {
          const main = value(`${loop}: CPU per round, main thread`) ?? 0;
          expect(main, loop).toBeGreaterThan(0);
          expect(value(`${loop}: CPU per round, all threads`) ?? 0, loop).toBeGreaterThanOrEqual(main);
        }
      }
      const missing = await runner(["--quick", "--json", "end_to_end"], {
        ...process.env,
        BENCH_END_TO_END_BASELINE: "/no/such/build/dist/bin.cjs",
      });
      expect(missing.code).not.toBe(0);
      expect(`${missing.stdout}${missing.stderr}`).toContain("BENCH_END_TO_END_BASELINE names no file");
    },
    2 * BENCHMARK_TIMEOUT_MS,
  );
});
