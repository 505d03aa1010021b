import { parseArgs } from "node:util";
import { BENCHMARKS, findBenchmark } from "./registry.js";

export const USAGE = `usage: node tooling/bench/dist/index.js [--quick] [--json] [name ...]

Runs all benchmarks, or the named ones, each in its own Node process, and prints one Markdown table.
  --quick   smaller sizes and fewer repeats (proves each benchmark runs; the figures mean little)
  --json    print {"environment", "rows", "failures"} as JSON instead of the table

benchmarks:
${BENCHMARKS.map((b) => `  ${b.name.padEnd(15)} ${b.summary}`).join("\n")}`;

export type Invocation =
  | { kind: "help" }
  | { kind: "usage-error"; message: string }
  /** The runner: runs each named benchmark in a child process and prints the table. */
  | { kind: "run"; names: string[]; quick: boolean; json: boolean }
  /** A child: runs one benchmark in this process and prints its rows as JSON. */
  | { kind: "child"; name: string; quick: boolean };

export function parseInvocation(argv: string[]): Invocation {
  // `pnpm bench -- --quick trace` hands the script a literal leading "--": options still follow it.
  const args = argv[0] === "--" ? argv.slice(1) : argv;
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (error) {
    return { kind: "usage-error", message: (error as Error).message };
  }
  const { values, positionals } = parsed;
  if (values.help) return { kind: "help" };
  const quick = values.quick ?? false;
  if (values.child !== undefined) {
    if (!findBenchmark(values.child))
      return { kind: "usage-error", message: `unknown benchmark "${values.child}"` };
    return { kind: "child", name: values.child, quick };
  }
  const unknown = positionals.filter((name) => !findBenchmark(name));
  if (unknown.length > 0) {
    const known = BENCHMARKS.map((b) => b.name).join(", ");
    return {
      kind: "usage-error",
      message: `unknown benchmark ${unknown.map((n) => `"${n}"`).join(", ")} (known: ${known})`,
    };
  }
  const names = positionals.length > 0 ? positionals : BENCHMARKS.map((b) => b.name);
  return { kind: "run", names, quick, json: values.json ?? false };
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      quick: { type: "boolean" },
      json: { type: "boolean" },
      child: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
}
