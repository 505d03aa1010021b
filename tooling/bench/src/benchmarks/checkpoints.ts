import { readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { checkpointBookFor, type Environment } from "@penguin/core";
import { sessionMeta, userText } from "@penguin/protocol";
import { type TraceLocation, TraceWriter } from "@penguin/trace";
import type { Benchmark, BenchOptions } from "../benchmark.js";
import { callTool, defaultEnvironment } from "../environment.js";
import { median } from "../measure.js";
import type { BenchRow } from "../table.js";
import { type BenchDirs, makeBenchDirs } from "../workdir.js";

// Checkpoints of the files a task changes ("Checkpoints and undo"): what they cost per file-tool
// call, and how much the store grows.
//
// Cost per call: write_file and edit_file on a file of 1 MiB and of 100 MiB, through an
// Environment with a session's checkpoint book (records into a real trace, contents into
// `<scratchpad>/checkpoints`) and through one without a checkpoint port, in alternating blocks
// so load hits both sides alike. All calls of one side run in one task: the task's first change
// stores the prior content once, every call stores the content it left (its after-state).
// A file over the store's per-file limit (32 MiB) is hashed, not stored.
//
// Growth: the store's size on disk after N edit_file calls to one 1 MiB file, all in one task and
// one per task.

const MiB = 1024 * 1024;

const SIZES = {
  full: {
    files: [
      { bytes: MiB, calls: 60, block: 10 },
      { bytes: 100 * MiB, calls: 6, block: 3 },
    ],
    edits: 1_000,
  },
  quick: {
    files: [
      { bytes: MiB, calls: 10, block: 5 },
      { bytes: 8 * MiB, calls: 4, block: 2 },
    ],
    edits: 50,
  },
};

const SESSION = "bench-session";
const FILLER = "export const value = 42; // a line of a large source file\n";

/** Content of about `bytes` bytes ending with a unique marker line edit_file can replace. */
function body(bytes: number, marker: number): string {
  return `${FILLER.repeat(Math.ceil(bytes / FILLER.length))}${markerLine(marker)}`;
}

const markerLine = (n: number) => `// <<marker ${n}>>\n`;

/** A trace and checkpoint book for the bench session, as a session's Environment gets them. */
function sessionWithCheckpoints(dirs: BenchDirs) {
  const location: TraceLocation = {
    tracesDir: join(dirs.dataRoot, "traces"),
    scratchpadRoot: join(dirs.root, "scratchpad"),
  };
  const trace = TraceWriter.create(location, SESSION);
  trace.append(
    sessionMeta({
      session_id: SESSION,
      provider: "fake",
      model_id: "fake-model",
      system_prompt: "You are a coding agent.",
      workspace: dirs.workspace,
    }),
  );
  const book = checkpointBookFor({
    sessionId: SESSION,
    rootSessionId: SESSION,
    scratchpadDir: dirs.scratchpad,
    trace,
    location,
  });
  const environment = defaultEnvironment(dirs, book);
  /** A new task, as the engine starts one: the user's message in the trace, then the Environment told. */
  const startTask = (text: string) => {
    trace.append(userText(text));
    environment.startTask();
  };
  return { trace, book, environment, startTask };
}

/** Times one call, failing the benchmark when it did not complete. */
async function timed(environment: Environment, name: string, args: Record<string, unknown>) {
  const start = process.hrtime.bigint();
  const output = await callTool(environment, name, args);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (output.stop_reason !== "completed") throw new Error(`${name} failed: ${output.output.slice(0, 300)}`);
  return ms;
}

/** Calls of one tool on one file, each changing it: next() runs the next call and returns its time. */
function callsOn(environment: Environment, tool: "write_file" | "edit_file", path: string, bytes: number) {
  let marker = 0;
  writeFileSync(path, body(bytes, marker));
  const base = FILLER.repeat(Math.ceil(bytes / FILLER.length));
  return async (): Promise<number> => {
    marker += 1;
    if (tool === "write_file")
      return timed(environment, tool, { file_path: path, content: `${base}${markerLine(marker)}` });
    return timed(environment, tool, {
      file_path: path,
      old_string: markerLine(marker - 1),
      new_string: markerLine(marker),
    });
  };
}

interface Cost {
  off: number;
  on: number;
}

async function callCost(
  on: ReturnType<typeof sessionWithCheckpoints>,
  off: Environment,
  dirs: BenchDirs,
  tool: "write_file" | "edit_file",
  file: { bytes: number; calls: number; block: number },
): Promise<Cost> {
  on.startTask(`${tool} on a ${file.bytes}-byte file`);
  const withBook = callsOn(
    on.environment,
    tool,
    join(dirs.workspace, `on-${tool}-${file.bytes}.ts`),
    file.bytes,
  );
  const without = callsOn(off, tool, join(dirs.workspace, `off-${tool}-${file.bytes}.ts`), file.bytes);
  const onTimes: number[] = [];
  const offTimes: number[] = [];
  for (let done = 0; done < file.calls; done += file.block) {
    for (let i = 0; i < file.block; i++) offTimes.push(await without());
    for (let i = 0; i < file.block; i++) onTimes.push(await withBook());
  }
  return { off: median(offTimes), on: median(onTimes) };
}

/** Bytes of every file below `dir` (0 when it does not exist). */
function bytesBelow(dir: string): number {
  let total = 0;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    const path = join(dir, name);
    const info = statSync(path);
    total += info.isDirectory() ? bytesBelow(path) : info.size;
  }
  return total;
}

/** The store's size after `edits` edit_file calls to one 1 MiB file, in one task or one per task. */
async function storeGrowth(edits: number, perTask: boolean): Promise<{ bytes: number; changeSets: number }> {
  const dirs = makeBenchDirs("checkpoints-growth");
  const session = sessionWithCheckpoints(dirs);
  try {
    const next = callsOn(session.environment, "edit_file", join(dirs.workspace, "edited.ts"), MiB);
    for (let i = 0; i < edits; i++) {
      if (perTask || i === 0) session.startTask(`edit ${i + 1}`);
      await next();
    }
    const changeSets = session.book.changeSets().length;
    if (changeSets !== (perTask ? edits : 1))
      throw new Error(`expected ${perTask ? edits : 1} change sets, found ${changeSets}`);
    return { bytes: bytesBelow(join(dirs.scratchpad, "checkpoints")), changeSets };
  } finally {
    session.trace.close();
    await session.environment.dispose();
    dirs.cleanup();
  }
}

const sizeName = (bytes: number) => `${bytes / MiB} MiB`;

export const checkpoints: Benchmark = {
  name: "checkpoints",
  summary:
    "checkpoint cost per write_file/edit_file call (1 MiB and 100 MiB file, on vs off) and store growth over 1,000 edits",
  async run({ quick }: BenchOptions): Promise<BenchRow[]> {
    const size = quick ? SIZES.quick : SIZES.full;
    const dirs = makeBenchDirs("checkpoints");
    const on = sessionWithCheckpoints(dirs);
    const off = defaultEnvironment(dirs);
    const rows: BenchRow[] = [];
    const row = (metric: string, value: number, unit: string): BenchRow => ({
      benchmark: this.name,
      metric,
      value,
      unit,
    });
    try {
      for (const file of size.files) {
        for (const tool of ["write_file", "edit_file"] as const) {
          const cost = await callCost(on, off, dirs, tool, file);
          const what = `${tool}, ${sizeName(file.bytes)} file`;
          rows.push(
            row(`${what}, checkpoints off (median of ${file.calls})`, cost.off, "ms"),
            row(`${what}, checkpoints on`, cost.on, "ms"),
            row(`${what}, on / off`, cost.on / cost.off, "×"),
          );
        }
      }
    } finally {
      on.trace.close();
      await on.environment.dispose();
      await off.dispose();
      dirs.cleanup();
    }
    const f = (n: number) => n.toLocaleString("en-US");
    for (const perTask of [false, true]) {
      const growth = await storeGrowth(size.edits, perTask);
      const how = perTask ? "one per task" : "in one task";
      rows.push(
        row(
          `store after ${f(size.edits)} edit_file calls to a 1 MiB file, ${how}`,
          growth.bytes / MiB,
          "MiB",
        ),
        row(`store growth per edit, ${how}`, growth.bytes / size.edits / 1024, "KiB"),
      );
    }
    return rows;
  },
};
