import { Command, CommanderError } from "commander";
import { EXIT_TASK_FAILED, EXIT_USAGE, UsageError } from "./exit-codes.js";
import { helpWidthFor } from "./help-width.js";
import { registerAcpCommand } from "./register/acp.js";
import { registerConfigCommands } from "./register/config.js";
import { registerMetricsCommand } from "./register/metrics.js";
import { registerServeCommand } from "./register/serve.js";
import { registerSessionCommands } from "./register/session.js";
import { registerSessionsCommands } from "./register/sessions.js";
import { registerTraceCommand } from "./register/trace.js";
import { registerUndoCommand } from "./register/undo.js";
import { CLI_VERSION } from "./version.js";

/**
 * The `penguin` command tree. Each command's module is imported only when that command runs,
 * so `penguin --version` and `penguin run` load nothing they do not use (the server, above all).
 * Also rendered at build time for `--version` and `--help` (render-light-output.ts).
 */
export function buildProgram(setExitCode: (code: number) => void): Command {
  const program = new Command("penguin")
    .description("Penguin: an agent harness that runs a model in a loop with tools, approvals and traces.")
    .version(CLI_VERSION, "-V, --version")
    .exitOverride()
    .configureOutput({
      writeErr: (s) => process.stderr.write(s),
      getOutHelpWidth: () => helpWidthFor(process.stdout),
      getErrHelpWidth: () => helpWidthFor(process.stderr),
    });
  registerSessionCommands(program, setExitCode);
  registerSessionsCommands(program, setExitCode);
  registerTraceCommand(program, setExitCode);
  registerUndoCommand(program, setExitCode);
  registerMetricsCommand(program, setExitCode);
  registerConfigCommands(program, setExitCode);
  registerServeCommand(program, setExitCode);
  registerAcpCommand(program, setExitCode);
  return program;
}

export async function main(argv: string[]): Promise<number> {
  let exitCode = 0;
  const program = buildProgram((code) => {
    exitCode = code;
  });
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
    // Another process has the session open (penguin chat or penguin serve): named, not a crash.
    if (err instanceof Error && err.name === "SessionHeldError") {
      process.stderr.write(`penguin: ${err.message}\n`);
      return EXIT_TASK_FAILED;
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
