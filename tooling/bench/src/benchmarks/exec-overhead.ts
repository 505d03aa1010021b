import type { Benchmark, BenchOptions } from "../benchmark.js";
import { callTool, defaultEnvironment, expectExitZero } from "../environment.js";
import { interleavedMediansMs } from "../measure.js";
import { runProcessOk } from "../processes.js";
import type { BenchRow } from "../table.js";
import { makeBenchDirs, shellEnv } from "../workdir.js";

// The fixed cost of one command: exec_command of `true` through the Environment (validation,
// process group, pipes, framing, close-out) against spawning the same login shell directly.

const FULL_RUNS = 30;
const QUICK_RUNS = 5;
const WARM_UP_RUNS = 3;
/** "The cost of one exec_command of `true` … as a ratio to a raw spawn: target <= 1.3". */
const RATIO_TARGET = 1.3;

export const execOverhead: Benchmark = {
  name: "exec_overhead",
  summary: "one exec_command of `true` through the Environment vs a raw spawn of bash -lc true",
  async run({ quick }: BenchOptions): Promise<BenchRow[]> {
    const runs = quick ? QUICK_RUNS : FULL_RUNS;
    const dirs = makeBenchDirs("exec-overhead");
    const environment = defaultEnvironment(dirs);
    const env = shellEnv(dirs.home);
    const throughEnvironment = async () => {
      expectExitZero(
        await callTool(environment, "exec_command", { description: "no-op", cmd: "true" }),
        "exec_command true",
      );
    };
    const raw = () => runProcessOk("bash", ["-lc", "true"], { env, stdout: "discard" });
    // What the contract's process group costs by itself: the same spawn options, no harness.
    const rawGroup = () =>
      runProcessOk("bash", ["-lc", "true"], { env, stdout: "discard", asCommandSession: true });
    try {
      await interleavedMediansMs(WARM_UP_RUNS, [throughEnvironment, raw, rawGroup]);
      const [harnessMs, rawMs, rawGroupMs] = await interleavedMediansMs(runs, [
        throughEnvironment,
        raw,
        rawGroup,
      ]);
      const ratio = harnessMs / rawMs;
      return [
        {
          benchmark: this.name,
          metric: `exec_command true (median of ${runs})`,
          value: harnessMs,
          unit: "ms",
        },
        {
          benchmark: this.name,
          metric: `raw spawn bash -lc true (median of ${runs})`,
          value: rawMs,
          unit: "ms",
        },
        {
          benchmark: this.name,
          metric: "exec_command / raw spawn",
          value: ratio,
          unit: "ratio",
          target: `<= ${RATIO_TARGET}`,
          ok: ratio <= RATIO_TARGET,
        },
        {
          benchmark: this.name,
          metric: "raw spawn in its own process group (detached, 3 pipes)",
          value: rawGroupMs,
          unit: "ms",
        },
        {
          benchmark: this.name,
          metric: "exec_command / raw spawn in own process group",
          value: harnessMs / rawGroupMs,
          unit: "ratio",
        },
      ];
    } finally {
      await environment.dispose();
      dirs.cleanup();
    }
  },
};
