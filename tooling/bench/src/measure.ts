import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** Wall-clock milliseconds of an async function. */
export async function timeMs(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** The middle value (the upper one of the two middles for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError("median of no values");
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** The `p`th percentile (0 < p <= 100) by the nearest-rank rule: a value that was measured. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) throw new RangeError("percentile of no values");
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length))) - 1];
}

/** The median of several runs: one slow run on a shared machine does not move it. */
export async function medianMs(runs: number, fn: () => Promise<unknown>): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) samples.push(await timeMs(fn));
  return median(samples);
}

/**
 * Medians of several functions whose runs are interleaved (a, b, a, b, …), so a burst of load
 * from another job on the shared machine hits every side alike and their ratio stays fair.
 */
export async function interleavedMediansMs(
  runs: number,
  fns: readonly (() => Promise<unknown>)[],
): Promise<number[]> {
  const samples: number[][] = fns.map(() => []);
  for (let i = 0; i < runs; i++) {
    for (const [index, fn] of fns.entries()) samples[index].push(await timeMs(fn));
  }
  return samples.map(median);
}

/**
 * Samples this process's memory while `fn` runs; returns the peak RSS and the peak of
 * `arrayBuffers` (Buffers live outside the JS heap, and are freed only when the GC runs).
 */
export async function peakRssDuring<T>(
  fn: () => Promise<T>,
  everyMs = 20,
): Promise<{ result: T; peakRss: number; peakArrayBuffers: number }> {
  let peak = process.memoryUsage();
  const sample = () => {
    const now = process.memoryUsage();
    peak = {
      ...peak,
      rss: Math.max(peak.rss, now.rss),
      arrayBuffers: Math.max(peak.arrayBuffers, now.arrayBuffers),
    };
  };
  const timer = setInterval(sample, everyMs);
  try {
    const result = await fn();
    sample();
    return { result, peakRss: peak.rss, peakArrayBuffers: peak.arrayBuffers };
  } finally {
    clearInterval(timer);
  }
}

/** Wall and CPU (user + system of this process) milliseconds of an async function. */
export async function wallAndCpuMs<T>(
  fn: () => Promise<T>,
): Promise<{ result: T; wallMs: number; cpuMs: number }> {
  const cpuStart = process.cpuUsage();
  const start = process.hrtime.bigint();
  const result = await fn();
  const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
  const cpu = process.cpuUsage(cpuStart);
  return { result, wallMs, cpuMs: (cpu.user + cpu.system) / 1000 };
}

let gcFunction: (() => void) | undefined;

/**
 * A full garbage collection, so heap figures compare live data rather than collection timing.
 * The runner starts each benchmark with `--expose-gc`; when a benchmark runs elsewhere (a test),
 * the flag is switched on at run time and `gc` is taken from a fresh context.
 */
export function collectGarbage(): void {
  if (!gcFunction) {
    const exposed = (globalThis as { gc?: () => void }).gc;
    if (typeof exposed === "function") {
      gcFunction = exposed;
    } else {
      setFlagsFromString("--expose-gc");
      gcFunction = runInNewContext("gc") as () => void;
    }
  }
  gcFunction();
}

export const MiB = 1024 * 1024;
