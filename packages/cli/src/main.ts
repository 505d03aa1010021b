import { Command, CommanderError } from "commander";
import { EXIT_USAGE, UsageError } from "./exit-codes.js";
import { registerConfigCommands } from "./register/config.js";
import { registerSessionsCommands } from "./register/sessions.js";
import { registerTraceCommand } from "./register/trace.js";
import { CLI_VERSION } from "./version.js";

/**
 * The `penguin` command tree. Each command's module is imported only when that command runs,
 * so `penguin --version` and `penguin run` load nothing they do not use (the server, above all).
 */
const collect = (value: string, previous: string[]) => [...previous, value];

export async function main(argv: string[]): Promise<number> {
  const program = new Command("penguin")
    .description("Penguin: an agent harness that runs a model in a loop with tools, approvals and traces.")
    .version(CLI_VERSION, "-V, --version")
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });

  let exitCode = 0;

  program
    .command("run")
    .description("Run one task and exit.")
    .option("-m, --message <prompt>", "the task (read from stdin when omitted and stdin is not a terminal)")
    .option("--model <ref>", "provider/model-id (split at the first slash), or replay:FILE for a cassette")
    .option("-w, --workspace <dir>", "the folder the agent works in (must exist)", process.cwd())
    .option("--approve <mode>", "allow-all | deny-all | read-only | always-ask", "allow-all")
    .option("--max-turns <n>", "stop after this many model requests in the task")
    .option(
      "--thinking <level>",
      "none | low | medium | high | max (default: the agent's model.thinking_level)",
    )
    .option("--attach <file>", "attach an image or a file to the prompt (repeatable)", collect, [])
    .option("--budget-tokens <n>", "end the task once the session has used this many tokens")
    .option("--budget-cost <usd>", "end the task once the session has cost this many US dollars")
    .option("--budget-time <seconds>", "end the task after this many seconds of running")
    .option("--resume <session-id>", "continue an existing session with a new prompt")
    .option("--json", "print every envelope as one JSON line on stdout, and nothing else")
    .option("--full-output", "show whole tool outputs instead of their first and last lines")
    .option("--show-thinking", "show the model's thinking as it streams")
    .option("--data-dir <dir>", "the data root (default: $PENGUIN_HOME, else ~/.penguin/data)")
    .action(async (opts) => {
      const { runCommand } = await import("./commands/run.js");
      exitCode = await runCommand(opts);
    });

  const setExitCode = (code: number) => {
    exitCode = code;
  };
  registerSessionsCommands(program, setExitCode);
  registerTraceCommand(program, setExitCode);
  registerConfigCommands(program, setExitCode);

  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end here with code 0; parse errors were already printed.
      return err.exitCode === 0 ? 0 : EXIT_USAGE;
    }
    if (err instanceof UsageError) {
      process.stderr.write(`penguin: ${err.message}\n`);
      return err.exitCode;
    }
    // The SDK's SetupError: a model, workspace, config or session id the user can fix.
    if (err instanceof Error && err.name === "SetupError") {
      process.stderr.write(`penguin: ${err.message}\n`);
      return EXIT_USAGE;
    }
    throw err;
  }
  return exitCode;
}
