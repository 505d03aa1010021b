import { closeSync, openSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { Benchmark, BenchOptions } from "../benchmark.js";
import { callTool, defaultEnvironment } from "../environment.js";
import { collectGarbage, interleavedMediansMs, MiB, peakRssDuring } from "../measure.js";
import { runProcessOk } from "../processes.js";
import type { BenchRow } from "../table.js";
import { makeBenchDirs } from "../workdir.js";

// read_file of a 2000-line window near the end of a 100 MB file, through the Environment with the
// default read_file definition, against `tail -n 2000` of the same file.

const FULL_FILE_BYTES = 100_000_000;
const QUICK_FILE_BYTES = 10_000_000;
/** read_file's default `limit`: "max lines returned; default 2000". */
const WINDOW_LINES = 2_000;
/** The window ends this many lines before the end of the file ("near the end"). */
const LINES_AFTER_WINDOW = 100;
const FULL_RUNS = 5;
const QUICK_RUNS = 2;
const LINES_PER_WRITE = 10_000;

/** Writes a text file of source-like lines of varied length; returns its line count. */
function writeTextFile(path: string, targetBytes: number): number {
  const fd = openSync(path, "w");
  let bytes = 0;
  let lines = 0;
  try {
    while (bytes < targetBytes) {
      const batch: string[] = [];
      for (let i = 0; i < LINES_PER_WRITE; i++, lines++) {
        const pad = "x".repeat(lines % 40);
        batch.push(`export const value${lines} = compute(${lines}, "${pad}"); // line ${lines + 1}\n`);
      }
      const text = batch.join("");
      writeSync(fd, text);
      bytes += Buffer.byteLength(text);
    }
  } finally {
    closeSync(fd);
  }
  return lines;
}

/** Lines of `cat -n` output in a read_file answer (its continuation note is not one). */
function countNumberedLines(output: string): number {
  return output.split("\n").filter((line) => /^\s*\d+\t/.test(line)).length;
}

export const readFileTail: Benchmark = {
  name: "read_file_tail",
  summary:
    "read_file of a 2000-line window near the end of a 100 MB file (10 MB with --quick) vs tail -n 2000",
  async run({ quick }: BenchOptions): Promise<BenchRow[]> {
    const runs = quick ? QUICK_RUNS : FULL_RUNS;
    const dirs = makeBenchDirs("read-file");
    const environment = defaultEnvironment(dirs);
    const file = join(dirs.workspace, "big.ts");
    try {
      const totalLines = writeTextFile(file, quick ? QUICK_FILE_BYTES : FULL_FILE_BYTES);
      const offset = totalLines - LINES_AFTER_WINDOW - WINDOW_LINES + 1;
      let linesReturned = 0;
      const readWindow = async () => {
        const output = await callTool(environment, "read_file", {
          file_path: file,
          offset,
          limit: WINDOW_LINES,
        });
        if (output.stop_reason !== "completed") {
          throw new Error(`read_file ended ${output.stop_reason}: ${output.output.slice(0, 500)}`);
        }
        linesReturned = countNumberedLines(output.output);
        if (linesReturned === 0)
          throw new Error(`read_file returned no lines: ${output.output.slice(0, 500)}`);
      };
      const tail = () => runProcessOk("tail", ["-n", String(WINDOW_LINES), file]);

      // Warm the page cache and the code paths, then measure memory from an idle, collected heap.
      await readWindow();
      await tail();
      collectGarbage();
      const idleRss = process.memoryUsage().rss;
      const measured = await peakRssDuring(() => interleavedMediansMs(runs, [readWindow, tail]));
      const [readMs, tailMs] = measured.result;
      return [
        { benchmark: this.name, metric: `read_file (median of ${runs})`, value: readMs, unit: "ms" },
        {
          benchmark: this.name,
          metric: `tail -n ${WINDOW_LINES} (median of ${runs})`,
          value: tailMs,
          unit: "ms",
        },
        { benchmark: this.name, metric: "read_file / tail", value: readMs / tailMs, unit: "ratio" },
        {
          benchmark: this.name,
          metric: "peak RSS above idle session",
          value: (measured.peakRss - idleRss) / MiB,
          unit: "MiB",
          // A difference of two samples: a window read that allocates nothing measures 0.
          signed: true,
        },
        { benchmark: this.name, metric: "file size", value: statSync(file).size / 1e6, unit: "MB" },
        { benchmark: this.name, metric: "file lines", value: totalLines, unit: "lines" },
        {
          benchmark: this.name,
          metric: "lines returned (16000-char cap)",
          value: linesReturned,
          unit: "lines",
        },
      ];
    } finally {
      await environment.dispose();
      dirs.cleanup();
    }
  },
};
