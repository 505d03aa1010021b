import type { BenchRow } from "./table.js";

export interface BenchOptions {
  /** Smaller sizes and fewer repeats: proves the benchmark runs (the smoke test), measures little. */
  quick: boolean;
}

/** One benchmark: a name to select it by, and a run that returns its rows. */
export interface Benchmark {
  name: string;
  /** One line for `--help`. */
  summary: string;
  run(options: BenchOptions): Promise<BenchRow[]>;
}
