// The benchmark runner: `node tooling/bench/dist/index.js [--quick] [--json] [name ...]`
// (`pnpm bench` at the root builds it first). Prints one Markdown table; ratios compare figures
// measured in the same run, because the machine is shared and absolute timings swing.
import { parseInvocation, USAGE } from "./cli-args.js";
import { findBenchmark } from "./registry.js";
import { environmentLine, runBenchmarks } from "./runner.js";
import { renderTable } from "./table.js";

const EXIT_FAILED = 1;
const EXIT_USAGE = 2;

async function main(argv: string[]): Promise<number> {
  const invocation = parseInvocation(argv);
  switch (invocation.kind) {
    case "help":
      process.stdout.write(`${USAGE}\n`);
      return 0;
    case "usage-error":
      process.stderr.write(`bench: ${invocation.message}\n${USAGE}\n`);
      return EXIT_USAGE;
    case "child": {
      const benchmark = findBenchmark(invocation.name);
      if (!benchmark) throw new Error(`unknown benchmark ${invocation.name}`);
      try {
        const rows = await benchmark.run({ quick: invocation.quick });
        process.stdout.write(`${JSON.stringify({ rows })}\n`);
        return 0;
      } catch (error) {
        // The runner reports the message in its summary; the stack goes to stderr for debugging.
        const message = error instanceof Error ? error.message : String(error);
        process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? message) : message}\n`);
        process.stdout.write(`${JSON.stringify({ error: message })}\n`);
        return EXIT_FAILED;
      }
    }
    case "run": {
      const result = await runBenchmarks(invocation.names, invocation.quick);
      if (invocation.json) {
        process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      } else {
        process.stdout.write(`${environmentLine(result.environment)}\n\n${renderTable(result.rows)}\n`);
        for (const failure of result.failures) {
          process.stdout.write(`\n**${failure.benchmark} failed:** ${failure.error}\n`);
        }
      }
      return result.failures.length > 0 ? EXIT_FAILED : 0;
    }
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = EXIT_FAILED;
  },
);
