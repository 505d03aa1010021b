import type { Command } from "commander";
import { type SetExitCode, withDataDir } from "./options.js";

/** `penguin trace <session-id>`; the renderer is imported only when the command runs. */
export function registerTraceCommand(program: Command, setExitCode: SetExitCode): void {
  withDataDir(
    program
      .command("trace")
      .argument("<session-id>", "the session id (`penguin sessions list` shows them)")
      .description("Show a session's trace: messages, tool calls and outputs, approvals, retries, usage."),
  )
    .option("--full", "show whole tool outputs and arguments instead of their first and last lines")
    .option("--approvals", "print the approval audit: each decision, its tool call and what decided it")
    .option(
      "--agents",
      "print the tree of agents: each agent's run id, named agent, status, session, messages and questions",
    )
    .option(
      "--json",
      "print the raw records (or, with --approvals, the audit entries; with --agents, the tree) as JSON lines",
    )
    .action(async (id: string, opts) => {
      const { traceCommand } = await import("../commands/trace.js");
      setExitCode(await traceCommand(id, opts));
    });
}
