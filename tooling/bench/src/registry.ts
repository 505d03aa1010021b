import type { Benchmark } from "./benchmark.js";
import { agentRounds } from "./benchmarks/agent-rounds.js";
import { agents } from "./benchmarks/agents.js";
import { checkpoints } from "./benchmarks/checkpoints.js";
import { cliStart } from "./benchmarks/cli-start.js";
import { compaction } from "./benchmarks/compaction.js";
import { endToEnd } from "./benchmarks/end-to-end.js";
import { execOverhead } from "./benchmarks/exec-overhead.js";
import { execStream } from "./benchmarks/exec-stream.js";
import { journal } from "./benchmarks/journal.js";
import { mcpRequestSize } from "./benchmarks/mcp-request-size.js";
import { readFileTail } from "./benchmarks/read-file-tail.js";
import { requestSize } from "./benchmarks/request-size.js";
import { sandboxOverhead } from "./benchmarks/sandbox-overhead.js";
import { startUpModules } from "./benchmarks/start-up-modules.js";
import { trace } from "./benchmarks/trace.js";

/** Every benchmark, in the order the runner runs and prints them. */
export const BENCHMARKS: readonly Benchmark[] = [
  execStream,
  execOverhead,
  sandboxOverhead,
  readFileTail,
  trace,
  journal,
  checkpoints,
  agentRounds,
  agents,
  compaction,
  requestSize,
  mcpRequestSize,
  cliStart,
  startUpModules,
  endToEnd,
];

export function findBenchmark(name: string): Benchmark | undefined {
  return BENCHMARKS.find((benchmark) => benchmark.name === name);
}
