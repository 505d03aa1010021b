import type { Command } from "commander";
import { type SetExitCode, withDataDir } from "./options.js";

const collect = (value: string, previous: string[]) => [...previous, value];

/** The flags `run` and `chat` share: the model, the workspace, approval, thinking, budgets, logs. */
function withSessionFlags(command: Command): Command {
  return withDataDir(
    command
      .option("--model <ref>", "provider/model-id (split at the first slash), or replay:FILE for a cassette")
      // No commander default: `--resume` refuses a workspace that was given, so "not given" must show.
      .option(
        "-w, --workspace <dir>",
        "the folder the agent works in (must exist; default: the current folder)",
      )
      .option("--approve <mode>", "allow-all | deny-all | read-only | always-ask | plan", "allow-all")
      .option(
        "--plan",
        "plan mode (--approve plan): only reading tools run, and the answer is a plan to approve",
      )
      .option("--max-turns <n>", "stop a task after this many model requests")
      .option(
        "--thinking <level>",
        "none | low | medium | high | max (default: the agent's model.thinking_level)",
      )
      .option("--budget-tokens <n>", "end the task once the session has used this many tokens")
      .option("--budget-cost <usd>", "end the task once the session has cost this many US dollars")
      .option("--budget-time <seconds>", "end the task after this many seconds of running")
      .option(
        "--profile <name>",
        "the execution profile tools run under: native, sandbox, or one of exec.profiles (default: the agent's exec.profile)",
      )
      .option("--full-output", "show whole tool outputs instead of their first and last lines")
      .option("--show-thinking", "show the model's thinking as it streams")
      .option("--verbose", "write debug logs to <data root>/logs/cli.log (same as PENGUIN_LOG=debug)"),
  );
}

/** `penguin run` and `penguin chat`; their modules load only when they run. */
export function registerSessionCommands(program: Command, setExitCode: SetExitCode): void {
  withSessionFlags(
    program
      .command("run")
      .description("Run one task and exit.")
      .option(
        "-m, --message <prompt>",
        "the task (read from stdin when omitted and stdin is not a terminal)",
      ),
  )
    .option("--attach <file>", "attach an image or a file to the prompt (repeatable)", collect, [])
    .option("--resume <session-id>", "continue an existing session with a new prompt")
    .option(
      "--record <file>",
      "save the session's model turns as a cassette (replay with --model replay:FILE)",
    )
    .option("--json", "print every envelope as one JSON line on stdout, and nothing else")
    .option(
      "--goal",
      "goal mode: work on the task round after round until the model marks it complete or blocked",
    )
    .option(
      "--goal-budget <n>",
      "with --goal: the tokens the goal may spend (request total minus cache reads); a wrap-up round follows",
    )
    .action(async (opts) => {
      const { runCommand } = await import("../commands/run.js");
      setExitCode(await runCommand(opts));
    });

  withSessionFlags(
    program
      .command("chat")
      .description("An interactive session: type prompts; typing while a task runs steers it."),
  )
    .option("--resume [session-id]", "continue a session (the newest one when no id is given)")
    .action(async (opts) => {
      const { chatCommand } = await import("../commands/chat.js");
      setExitCode(await chatCommand(opts));
    });
}
