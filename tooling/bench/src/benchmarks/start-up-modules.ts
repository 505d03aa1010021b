import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { startFakeLlm } from "@penguin/fake-llm";
import type { Benchmark, BenchOptions } from "../benchmark.js";
import { runToFirstRequest } from "../first-request.js";
import { median } from "../measure.js";
import { nodeStartEnv } from "../node-start-env.js";
import { penguinBin } from "../penguin-bin.js";
import type { BenchRow } from "../table.js";
import { MODULE_TIMES_ENV, type ModuleTimes, makeTimedCli, moduleLabel } from "../timed-bundle.js";
import { makeBenchDirs } from "../workdir.js";

// Which of the CLI's modules take the time of `penguin run` before its first model request, and
// how many zod schemas they build: a copy of the built CLI whose bundle times the first evaluation
// of each module (timed-bundle.ts), run against fake-llm. Times are each module's own (the modules
// it evaluates in turn count as theirs), medians over the runs; what the bundle evaluates as it
// starts (the CLI's own top level) is not wrapped by the bundler and not counted.

const FULL_RUNS = 10;
const QUICK_RUNS = 2;
/** The modules named one by one; the rest are in the total. */
const SHOWN_MODULES = 12;
/** The modules named with the zod schemas they build. */
const SCHEMA_BUILDERS_SHOWN = 4;
const API_KEY = "sk-bench-start-up-modules";

/** One run: its module times, and the milliseconds from its spawn to fake-llm's first request. */
interface RunSeen {
  times: ModuleTimes;
  toFirstRequestMs: number;
}

export const startUpModules: Benchmark = {
  name: "start_up_modules",
  summary: "which modules of the CLI's bundle take the time before penguin run's first model request",
  async run({ quick }: BenchOptions): Promise<BenchRow[]> {
    const runs = quick ? QUICK_RUNS : FULL_RUNS;
    const dirs = makeBenchDirs("start-up-modules");
    const llm = await startFakeLlm({ apiKey: API_KEY });
    try {
      const bin = makeTimedCli(penguinBin(), join(dirs.root, "cli"));
      const timesFile = join(dirs.root, "module-times.json");
      const env = nodeStartEnv({
        HOME: dirs.home,
        NO_COLOR: "1",
        OPENAI_API_KEY: API_KEY,
        OPENAI_BASE_URL: `${llm.url}/v1`,
        PENGUIN_CODE_CACHE: join(dirs.root, "code-cache"),
        [MODULE_TIMES_ENV]: timesFile,
      });
      const runOnce = async (): Promise<RunSeen> => {
        const workspace = mkdtempSync(join(dirs.root, "ws-"));
        // A run that writes no times must not be read as the one before it.
        rmSync(timesFile, { force: true });
        const args = [bin, "run", "--model", "openai/fake-model", "-w", workspace, "-m", "hi"];
        const toFirstRequestMs = await runToFirstRequest(llm, args, env);
        const times = JSON.parse(readFileSync(timesFile, "utf8")) as ModuleTimes;
        return { times, toFirstRequestMs };
      };
      // The first run makes the code cache and the default agent, as a user's first run does.
      await runOnce();
      const runsSeen: RunSeen[] = [];
      for (let i = 0; i < runs; i++) runsSeen.push(await runOnce());
      const samples = runsSeen.map((seen) => new Map(seen.times.ms));
      // The same modules build the same schemas at every start: the last run's count.
      const schemas = new Map(runsSeen.at(-1)?.times.schemas ?? []);
      const schemaTotal = [...schemas.values()].reduce((sum, count) => sum + count, 0);
      const schemaBuilders = [...schemas].filter(([, count]) => count > 0).sort((a, b) => b[1] - a[1]);
      const names = new Set(samples.flatMap((sample) => [...sample.keys()]));
      const medians = [...names]
        .map((name) => ({ name, ms: median(samples.map((sample) => sample.get(name) ?? 0)) }))
        .sort((a, b) => b.ms - a.ms);
      const totals = samples.map((sample) => [...sample.values()].reduce((sum, ms) => sum + ms, 0));
      return [
        {
          benchmark: this.name,
          metric: `modules evaluated before the first request (of ${runs} runs)`,
          value: median(samples.map((sample) => sample.size)),
          unit: "modules",
        },
        { benchmark: this.name, metric: "their evaluation, all together", value: median(totals), unit: "ms" },
        {
          benchmark: this.name,
          metric: "start to first request (this copy of the CLI)",
          value: median(runsSeen.map((seen) => seen.toFirstRequestMs)),
          unit: "ms",
        },
        {
          benchmark: this.name,
          metric: "module evaluation / start to first request",
          value: median(runsSeen.map((seen, i) => (totals[i] ?? 0) / seen.toFirstRequestMs)),
          unit: "ratio",
        },
        {
          benchmark: this.name,
          metric: "zod schemas built before the first request",
          value: schemaTotal,
          unit: "schemas",
          // None since the protocol's and the configuration's schemas are built on first use.
          count: true,
        },
        ...schemaBuilders.slice(0, SCHEMA_BUILDERS_SHOWN).map(([name, count]) => ({
          benchmark: this.name,
          metric: `zod schemas built by ${moduleLabel(name)}`,
          value: count,
          unit: "schemas",
        })),
        ...medians.slice(0, SHOWN_MODULES).map(({ name, ms }) => ({
          benchmark: this.name,
          metric: `evaluating ${moduleLabel(name)}`,
          value: ms,
          unit: "ms",
        })),
      ];
    } finally {
      await llm.close();
      dirs.cleanup();
    }
  },
};
