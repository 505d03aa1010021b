import { allowAll, createAgent } from "@penguin/core";
import type { OmniMessage } from "@penguin/protocol";
import type { Benchmark, BenchOptions } from "../benchmark.js";
import { FAKE_MODEL, startFakeLlmProcess, useFakeModel } from "../fake-model.js";
import { collectGarbage, median, timeMs, wallAndCpuMs } from "../measure.js";
import { runProcessOk } from "../processes.js";
import type { BenchRow } from "../table.js";
import { makeBenchDirs, shellEnv, withHome } from "../workdir.js";

// The harness's own cost per agent round: a zero-latency fake model (in a child process) asks
// for one `exec_command true` per turn, through the SDK with allowAll, for N rounds and a final
// text. Everything this process does per round (HTTP client and stream parsing, approval, the
// Environment, the trace, the spawn itself) is the harness's cost.

const FULL_ROUNDS = 200;
const QUICK_ROUNDS = 20;
const FULL_SPAWN_RUNS = 20;
const QUICK_SPAWN_RUNS = 5;

function script(rounds: number) {
  const turns: unknown[] = [];
  for (let i = 0; i < rounds; i++) {
    turns.push({ tool_calls: [{ name: "exec_command", arguments: { description: "no-op", cmd: "true" } }] });
  }
  turns.push({ text: "All rounds done." });
  return { turns } as Parameters<typeof startFakeLlmProcess>[0];
}

interface RunSummary {
  outputs: number;
  failedOutputs: string[];
  taskStatus: string | undefined;
}

/**
 * Reads the task to its end. `atHalf` runs when half of the rounds have returned their output
 * (one full GC there costs a few ms of a run that takes seconds).
 */
async function drain(
  messages: AsyncIterable<OmniMessage>,
  rounds: number,
  atHalf: () => void,
): Promise<RunSummary> {
  const summary: RunSummary = { outputs: 0, failedOutputs: [], taskStatus: undefined };
  for await (const message of messages) {
    const payload = message.payload as { type?: string; output?: string; status?: string };
    if (payload.type === "tool_call_output") {
      summary.outputs += 1;
      if (!payload.output?.includes("[exit code: 0]")) summary.failedOutputs.push(String(payload.output));
      if (summary.outputs === Math.floor(rounds / 2)) atHalf();
    } else if (payload.type === "task_end") {
      summary.taskStatus = payload.status;
    }
  }
  return summary;
}

/** Heap in use after a full collection: live data only. */
function liveHeap(): number {
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

export const agentRounds: Benchmark = {
  name: "agent_rounds",
  summary:
    "harness wall/CPU ms and memory per agent round (exec_command true) against a zero-latency fake model",
  async run({ quick }: BenchOptions): Promise<BenchRow[]> {
    const rounds = quick ? QUICK_ROUNDS : FULL_ROUNDS;
    const dirs = makeBenchDirs("agent-rounds");
    const server = await startFakeLlmProcess(script(rounds), dirs.root);
    try {
      // Commands inherit this process's environment: the same empty HOME as the raw spawns.
      return await withHome(dirs.home, async () => {
        const env = shellEnv(dirs.home);
        // Half the raw spawns before the rounds and half after, so a change in the machine's load
        // during the run weighs on both sides of the ratio.
        const spawnRuns = quick ? QUICK_SPAWN_RUNS : FULL_SPAWN_RUNS;
        const spawnSamples: number[] = [];
        const sampleSpawns = async (count: number) => {
          for (let i = 0; i < count; i++) {
            spawnSamples.push(
              await timeMs(() => runProcessOk("bash", ["-lc", "true"], { env, stdout: "discard" })),
            );
          }
        };
        await sampleSpawns(Math.ceil(spawnRuns / 2));

        await useFakeModel(dirs.dataRoot, server.url);
        const agent = await createAgent({ dataRoot: dirs.dataRoot, logger: { warn: () => {} } });
        const session = await agent.createSession({
          workspaceDir: dirs.workspace,
          model: FAKE_MODEL,
          maxTurns: rounds + 1,
        });
        try {
          collectGarbage();
          const before = process.memoryUsage();
          let halfHeap = 0;
          const measured = await wallAndCpuMs(() =>
            drain(session.run("Run the no-op rounds.", { approve: allowAll }), rounds, () => {
              halfHeap = liveHeap();
            }),
          );
          const afterHeap = liveHeap();
          const after = process.memoryUsage();
          await sampleSpawns(Math.floor(spawnRuns / 2));
          const spawnMs = median(spawnSamples);
          const summary = measured.result;
          if (
            summary.taskStatus !== "completed" ||
            summary.outputs !== rounds ||
            summary.failedOutputs.length > 0
          ) {
            throw new Error(
              `the task did not run ${rounds} clean rounds: status ${summary.taskStatus}, ${summary.outputs} outputs, ` +
                `first failure: ${summary.failedOutputs[0]?.slice(0, 300) ?? "none"}`,
            );
          }
          const wallPerRound = measured.wallMs / rounds;
          return [
            {
              benchmark: this.name,
              metric: `wall per round (${rounds} rounds)`,
              value: wallPerRound,
              unit: "ms",
            },
            {
              benchmark: this.name,
              metric: "harness CPU per round (user + system)",
              value: measured.cpuMs / rounds,
              unit: "ms",
            },
            {
              benchmark: this.name,
              metric: `raw spawn bash -lc true (median of ${spawnRuns})`,
              value: spawnMs,
              unit: "ms",
            },
            {
              benchmark: this.name,
              metric: "wall per round / raw spawn",
              value: wallPerRound / spawnMs,
              unit: "ratio",
            },
            {
              benchmark: this.name,
              metric: "heap growth per round (after GC)",
              value: (afterHeap - before.heapUsed) / 1024 / rounds,
              unit: "KiB",
              signed: true,
            },
            {
              // The first rounds also fill the session's table of finished command sessions (up to
              // 64 kept for input_command); the second half shows the steady growth.
              benchmark: this.name,
              metric: "heap growth per round, second half",
              value: (afterHeap - halfHeap) / 1024 / (rounds - Math.floor(rounds / 2)),
              unit: "KiB",
              signed: true,
            },
            {
              benchmark: this.name,
              metric: "RSS growth per round (after GC)",
              value: (after.rss - before.rss) / 1024 / rounds,
              unit: "KiB",
              signed: true,
            },
          ];
        } finally {
          await session.dispose();
        }
      });
    } finally {
      await server.close();
      dirs.cleanup();
    }
  },
};
