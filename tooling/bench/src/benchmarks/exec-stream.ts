import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { Environment } from "@penguin/core";
import type { Benchmark, BenchOptions } from "../benchmark.js";
import { callTool, defaultEnvironment, expectExitZero } from "../environment.js";
import { collectGarbage, MiB, median, peakRssDuring, timeMs } from "../measure.js";
import { runProcessOk } from "../processes.js";
import type { BenchRow } from "../table.js";
import { makeBenchDirs, shellEnv } from "../workdir.js";

// A command that prints a huge output, streamed through a real exec_command (default 16000-char
// cap, archive on), against the same command with its output thrown away by the shell itself.

const execFileAsync = promisify(execFile);

const FULL_BYTES = 1024 * MiB;
const QUICK_BYTES = 64 * MiB;
/** "the harness's peak RSS above an idle session: bounded, under 64 MiB above idle". */
const RSS_ABOVE_IDLE_TARGET_MIB = 64;
/** exec_command waits in the foreground up to its yield window, capped below the 120 s timeout. */
const YIELD_MS = 600_000;

const printCommand = (bytes: number) => `head -c ${bytes} /dev/zero | tr '\\0' a`;
/** The other shape of huge output: a newline every second character (`yes`). */
const printLinesCommand = (bytes: number) => `yes | head -c ${bytes}`;
const LINES_FULL_BYTES = 256 * MiB;
const LINES_QUICK_BYTES = 16 * MiB;

/**
 * The raw Node baseline runs in a Node process of its own, which times itself: a reader that
 * throws its chunks away leaves tens of MB of unread Buffers behind for the garbage collector, and
 * in this process they would be charged to the harness's next run.
 */
const RAW_READER = `
const { spawn } = require("node:child_process");
const start = process.hrtime.bigint();
const child = spawn("bash", ["-lc", process.argv[1]], { stdio: ["ignore", "pipe", "inherit"] });
child.stdout.resume();
child.on("close", (code) => {
  if (code !== 0) process.exit(1);
  process.stdout.write(String(Number(process.hrtime.bigint() - start) / 1e6));
});
`;

async function rawNodeReaderMs(cmd: string, env: NodeJS.ProcessEnv): Promise<number> {
  const { stdout } = await execFileAsync(process.execPath, ["-e", RAW_READER, cmd], { env });
  const ms = Number(stdout);
  if (!Number.isFinite(ms)) throw new Error(`the raw Node reader printed no time: ${stdout.slice(0, 200)}`);
  return ms;
}

async function streamThroughEnvironment(
  environment: Environment,
  bytes: number,
  command: (bytes: number) => string = printCommand,
): Promise<void> {
  const output = await callTool(environment, "exec_command", {
    description: "print a huge output",
    cmd: command(bytes),
    yield_time_ms: YIELD_MS,
  });
  expectExitZero(output, `exec_command printing ${bytes} bytes`);
}

export const execStream: Benchmark = {
  name: "exec_stream",
  summary: "exec_command streaming 1 GiB of output (64 MiB with --quick): MB/s and peak RSS above idle",
  async run({ quick }: BenchOptions): Promise<BenchRow[]> {
    const bytes = quick ? QUICK_BYTES : FULL_BYTES;
    const runs = quick ? 1 : 3;
    const dirs = makeBenchDirs("exec-stream");
    const environment = defaultEnvironment(dirs);
    const env = shellEnv(dirs.home);
    const shell = (cmd: string) => ["-lc", cmd];
    try {
      // The idle session: tools built, one command already run (code loaded), garbage collected.
      await streamThroughEnvironment(environment, 1024);
      collectGarbage();
      const idle = process.memoryUsage();
      const idleRss = idle.rss;

      const harness: number[] = [];
      const devNull: number[] = [];
      const nodePipe: number[] = [];
      let peakRss = idleRss;
      let peakArrayBuffers = idle.arrayBuffers;
      for (let i = 0; i < runs; i++) {
        const measured = await peakRssDuring(() =>
          timeMs(() => streamThroughEnvironment(environment, bytes)),
        );
        harness.push(measured.result);
        peakRss = Math.max(peakRss, measured.peakRss);
        peakArrayBuffers = Math.max(peakArrayBuffers, measured.peakArrayBuffers);
        devNull.push(
          await timeMs(() => runProcessOk("bash", shell(`${printCommand(bytes)} > /dev/null`), { env })),
        );
        nodePipe.push(await rawNodeReaderMs(printCommand(bytes), env));
      }
      // Dense lines cost the harness more per byte (line bookkeeping) than one endless line.
      const linesBytes = quick ? LINES_QUICK_BYTES : LINES_FULL_BYTES;
      const linesHarness: number[] = [];
      const linesNodePipe: number[] = [];
      for (let i = 0; i < runs; i++) {
        linesHarness.push(
          await timeMs(() => streamThroughEnvironment(environment, linesBytes, printLinesCommand)),
        );
        linesNodePipe.push(await rawNodeReaderMs(printLinesCommand(linesBytes), env));
      }
      const linesRate = linesBytes / 1e6 / (median(linesHarness) / 1000);
      const linesRawRate = linesBytes / 1e6 / (median(linesNodePipe) / 1000);

      const mbPerSecond = (ms: number) => bytes / 1e6 / (ms / 1000);
      const harnessRate = mbPerSecond(median(harness));
      const devNullRate = mbPerSecond(median(devNull));
      const nodePipeRate = mbPerSecond(median(nodePipe));
      const aboveIdleMib = (peakRss - idleRss) / MiB;
      const size = `${bytes / MiB} MiB`;
      return [
        { benchmark: this.name, metric: `exec_command of ${size}`, value: harnessRate, unit: "MB/s" },
        { benchmark: this.name, metric: `raw spawn, shell > /dev/null`, value: devNullRate, unit: "MB/s" },
        {
          benchmark: this.name,
          metric: "raw spawn, piped into Node, discarded (own process)",
          value: nodePipeRate,
          unit: "MB/s",
        },
        {
          benchmark: this.name,
          metric: "exec_command / raw > /dev/null",
          value: harnessRate / devNullRate,
          unit: "ratio",
        },
        {
          benchmark: this.name,
          metric: "exec_command / raw piped into Node",
          value: harnessRate / nodePipeRate,
          unit: "ratio",
        },
        {
          benchmark: this.name,
          metric: "peak RSS above idle session",
          value: aboveIdleMib,
          unit: "MiB",
          target: `< ${RSS_ABOVE_IDLE_TARGET_MIB}`,
          ok: aboveIdleMib < RSS_ABOVE_IDLE_TARGET_MIB,
          signed: true,
        },
        {
          benchmark: this.name,
          metric: "peak Buffer memory (arrayBuffers) above idle",
          value: (peakArrayBuffers - idle.arrayBuffers) / MiB,
          unit: "MiB",
          signed: true,
        },
        { benchmark: this.name, metric: "idle session RSS", value: idleRss / MiB, unit: "MiB" },
        {
          benchmark: this.name,
          metric: `exec_command of ${linesBytes / MiB} MiB of 2-char lines (yes)`,
          value: linesRate,
          unit: "MB/s",
        },
        {
          benchmark: this.name,
          metric: "2-char lines: exec_command / raw piped into Node",
          value: linesRate / linesRawRate,
          unit: "ratio",
        },
      ];
    } finally {
      await environment.dispose();
      dirs.cleanup();
    }
  },
};
