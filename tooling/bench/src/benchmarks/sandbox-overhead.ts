import { createBuiltinTools, Environment, ProcessManager } from "@penguin/core";
import { builtinExecutionProfiles, DEFAULT_TOOL_DEFINITIONS } from "@penguin/state";
import type { Benchmark, BenchOptions } from "../benchmark.js";
import { callTool, defaultEnvironment, expectExitZero } from "../environment.js";
import { interleavedMediansMs } from "../measure.js";
import type { BenchRow } from "../table.js";
import { type BenchDirs, makeBenchDirs, shellEnv } from "../workdir.js";

// What the sandbox costs per command: exec_command of `true` in a session of the built-in
// `sandbox` profile (bwrap, its mounts and namespaces) against the same call in `native`,
// measured interleaved in one run.

const FULL_RUNS = 30;
const QUICK_RUNS = 5;
const WARM_UP_RUNS = 3;

/** The Environment of a `sandbox` session: the same tools, its commands behind bwrap. */
function sandboxedEnvironment(dirs: BenchDirs): Environment {
  const { tools } = createBuiltinTools(DEFAULT_TOOL_DEFINITIONS);
  const profile = builtinExecutionProfiles().sandbox;
  if (!profile) throw new Error("no built-in sandbox profile");
  return new Environment({
    tools,
    sessionId: "bench-session",
    workspaceDir: dirs.workspace,
    scratchpadDir: dirs.scratchpad,
    processes: new ProcessManager({
      baseEnv: shellEnv(dirs.home),
      sandbox: { profile, workspaceDir: dirs.workspace, dataRoot: dirs.dataRoot },
    }),
    warn: (line) => process.stderr.write(`bench: environment warning: ${line}\n`),
  });
}

export const sandboxOverhead: Benchmark = {
  name: "sandbox_overhead",
  summary: "one exec_command of `true` in the sandbox profile (bwrap) vs the native profile",
  async run({ quick }: BenchOptions): Promise<BenchRow[]> {
    const runs = quick ? QUICK_RUNS : FULL_RUNS;
    const dirs = makeBenchDirs("sandbox-overhead");
    const native = defaultEnvironment(dirs);
    const sandboxed = sandboxedEnvironment(dirs);
    const call = (environment: Environment, what: string) => async () => {
      expectExitZero(
        await callTool(environment, "exec_command", { description: "no-op", cmd: "true" }),
        what,
      );
    };
    const steps = [
      call(sandboxed, "exec_command true (sandbox)"),
      call(native, "exec_command true (native)"),
    ];
    try {
      await interleavedMediansMs(WARM_UP_RUNS, steps);
      const [sandboxMs, nativeMs] = await interleavedMediansMs(runs, steps);
      return [
        {
          benchmark: this.name,
          metric: `exec_command true, sandbox / native (medians of ${runs}: ${sandboxMs.toFixed(1)} ms / ${nativeMs.toFixed(1)} ms)`,
          value: sandboxMs / nativeMs,
          unit: "ratio",
        },
      ];
    } finally {
      await Promise.all([native.dispose(), sandboxed.dispose()]);
      dirs.cleanup();
    }
  },
};
