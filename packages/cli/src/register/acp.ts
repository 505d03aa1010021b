import type { Command } from "commander";
import { type SetExitCode, withDataDir } from "./options.js";

/** `penguin acp`: an Agent Client Protocol agent on stdio, for editors; its module loads only when it runs. */
export function registerAcpCommand(program: Command, setExitCode: SetExitCode): void {
  withDataDir(
    program
      .command("acp")
      .description("Serve the Agent Client Protocol on stdin/stdout, for editors (Zed, JetBrains IDEs…)."),
  )
    .option(
      "--model <ref>",
      "provider/model-id for new sessions (default: $PENGUIN_MODEL, else the config's)",
    )
    .option(
      "--approve <mode>",
      "the approval mode sessions start in: always-ask | read-only | allow-all | deny-all | plan",
      "read-only",
    )
    .option(
      "--profile <name>",
      "the execution profile of new sessions: native, sandbox, or one of exec.profiles (default: the agent's exec.profile)",
    )
    .option("--verbose", "write debug logs to <data root>/logs/cli.log (same as PENGUIN_LOG=debug)")
    .action(async (opts) => {
      const { acpCommand } = await import("../commands/acp.js");
      setExitCode(await acpCommand(opts));
    });
}
