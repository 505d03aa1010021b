import { spawn } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import type { BenchRow } from "./table.js";

/** Where and how a run was measured, printed above its table. */
export interface RunEnvironment {
  date: string;
  node: string;
  cpus: number;
  cpuModel: string;
  /** The 1-minute load average when the run started: above the core count, other jobs compete. */
  load: number;
  quick: boolean;
}

export interface RunResult {
  environment: RunEnvironment;
  rows: BenchRow[];
  /** Benchmarks that failed, with their error; their rows are missing from `rows`. */
  failures: { benchmark: string; error: string }[];
}

export function describeEnvironment(quick: boolean): RunEnvironment {
  return {
    date: new Date().toISOString().slice(0, 10),
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model.trim() ?? "unknown CPU",
    load: loadavg()[0],
    quick,
  };
}

export function environmentLine(env: RunEnvironment): string {
  const mode = env.quick ? ", --quick (smoke sizes, not figures to quote)" : "";
  return `_${env.date}, Node ${env.node}, ${env.cpus} × ${env.cpuModel}, load average ${env.load.toFixed(1)}${mode}_`;
}

/**
 * Runs one benchmark in a fresh Node process: memory figures start from that process's idle
 * state rather than from whatever earlier benchmarks left behind, and `--expose-gc` is on.
 */
function runChild(name: string, quick: boolean): Promise<BenchRow[]> {
  const entry = fileURLToPath(import.meta.url);
  const args = ["--expose-gc", entry, "--child", name, ...(quick ? ["--quick"] : [])];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
    let stdout = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (text: string) => {
      stdout += text;
    });
    child.on("error", reject);
    child.on("close", (code, signal) => {
      let report: { rows?: BenchRow[]; error?: string } | undefined;
      try {
        report = JSON.parse(stdout) as { rows?: BenchRow[]; error?: string };
      } catch {
        report = undefined;
      }
      if (code === 0 && Array.isArray(report?.rows)) resolve(report.rows);
      else if (report?.error) reject(new Error(report.error));
      else {
        const how = signal ? `signal ${signal}` : `exit code ${code}`;
        reject(new Error(`the benchmark process ended with ${how} and printed no rows`));
      }
    });
  });
}

/** Runs the named benchmarks one after another (never in parallel: they would measure each other). */
export async function runBenchmarks(names: readonly string[], quick: boolean): Promise<RunResult> {
  const result: RunResult = { environment: describeEnvironment(quick), rows: [], failures: [] };
  for (const name of names) {
    process.stderr.write(`bench: running ${name}${quick ? " (quick)" : ""}\n`);
    const start = Date.now();
    try {
      result.rows.push(...(await runChild(name, quick)));
      process.stderr.write(`bench: ${name} done in ${((Date.now() - start) / 1000).toFixed(1)} s\n`);
    } catch (error) {
      result.failures.push({ benchmark: name, error: (error as Error).message });
      process.stderr.write(`bench: ${name} FAILED: ${(error as Error).message}\n`);
    }
  }
  return result;
}
