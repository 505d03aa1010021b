// The light entry: no zod on the start-up path of every command.
import { METRICS_SUMMARIES } from "@penguin/protocol/stream";
import type { Command } from "commander";
import { type SetExitCode, withDataDir } from "./options.js";

/** `penguin metrics`; the command is imported only when it runs. */
export function registerMetricsCommand(program: Command, setExitCode: SetExitCode): void {
  withDataDir(
    program
      .command("metrics")
      .description(
        "Show a session's measurements from its trace, slowest first: tools, model requests, turns, child agents, hooks or sessions.",
      ),
  )
    .option("--session <id>", "the session (default: the most recent one)")
    .option("--summary <what>", `what one row is: ${METRICS_SUMMARIES.join(", ")}`, "tools")
    .option("--json", "print one JSON object per row")
    .action(async (opts) => {
      const { metricsCommand } = await import("../commands/metrics.js");
      setExitCode(await metricsCommand(opts));
    });
}
