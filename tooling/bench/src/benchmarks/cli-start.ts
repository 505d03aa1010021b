import { startFakeLlm } from "@penguin/fake-llm";
import type { Benchmark, BenchOptions } from "../benchmark.js";
import { runToFirstRequest } from "../first-request.js";
import { median, timeMs } from "../measure.js";
import { nodeStartEnv } from "../node-start-env.js";
import { penguinBin } from "../penguin-bin.js";
import { runProcessOk } from "../processes.js";
import type { BenchRow } from "../table.js";
import { makeBenchDirs } from "../workdir.js";

// CLI cold start: `penguin --version`, and `penguin run` up to the moment fake-llm receives its
// first model request, against a bare `node -e 0` measured in the same run.

const FULL_RUNS = 10;
const QUICK_RUNS = 3;
const API_KEY = "sk-bench-cli";

export const cliStart: Benchmark = {
  name: "cli_start",
  summary: "penguin --version and penguin run (to its first model request) vs node -e 0",
  async run({ quick }: BenchOptions): Promise<BenchRow[]> {
    const runs = quick ? QUICK_RUNS : FULL_RUNS;
    const dirs = makeBenchDirs("cli-start");
    const llm = await startFakeLlm({ apiKey: API_KEY });
    const bin = penguinBin();
    const env = nodeStartEnv({
      HOME: dirs.home,
      NO_COLOR: "1",
      OPENAI_API_KEY: API_KEY,
      OPENAI_BASE_URL: `${llm.url}/v1`,
    });
    const runArgs = [
      bin,
      "run",
      "--model",
      "openai/fake-model",
      "--data-dir",
      dirs.dataRoot,
      "-w",
      dirs.workspace,
      "-m",
      "hi",
    ];
    try {
      // The first run creates the default agent in the data root; later runs find it, as a user's do.
      await runToFirstRequest(llm, runArgs, env);
      // Interleaved, so a burst of load from another job hits every side alike.
      const node: number[] = [];
      const version: number[] = [];
      const toRequest: number[] = [];
      for (let i = 0; i < runs; i++) {
        node.push(await timeMs(() => runProcessOk(process.execPath, ["-e", "0"], { env })));
        version.push(
          await timeMs(() => runProcessOk(process.execPath, [bin, "--version"], { env, stdout: "discard" })),
        );
        toRequest.push(await runToFirstRequest(llm, runArgs, env));
      }
      const nodeMs = median(node);
      const versionMs = median(version);
      const runMedian = median(toRequest);
      return [
        { benchmark: this.name, metric: `node -e 0 (median of ${runs})`, value: nodeMs, unit: "ms" },
        { benchmark: this.name, metric: "penguin --version", value: versionMs, unit: "ms" },
        { benchmark: this.name, metric: "penguin run, to first model request", value: runMedian, unit: "ms" },
        {
          benchmark: this.name,
          metric: "penguin --version / node -e 0",
          value: versionMs / nodeMs,
          unit: "ratio",
        },
        {
          benchmark: this.name,
          metric: "penguin run to request / node -e 0",
          value: runMedian / nodeMs,
          unit: "ratio",
        },
      ];
    } finally {
      await llm.close();
      dirs.cleanup();
    }
  },
};
