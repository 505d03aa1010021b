import type { Command } from "commander";
import { type SetExitCode, withDataDir } from "./options.js";

/** `penguin undo`; its implementation is imported only when the command runs. */
export function registerUndoCommand(program: Command, setExitCode: SetExitCode): void {
  withDataDir(
    program
      .command("undo")
      .description(
        "Revert the file changes of a session's last task (or the one --task names): files changed since are left alone and reported.",
      ),
  )
    .option("--session <id>", "the session (default: the most recent top-level session)")
    .option("--task <n>", "the task's number in the session, or a revert's id (undo-1) to undo that revert")
    .option("--dry-run", "say what would be restored and what conflicts; change nothing")
    .option("--force", "also overwrite files changed since the task")
    .option("--json", "print the outcome as JSON")
    .action(async (opts) => {
      const { undoCommand } = await import("../commands/undo.js");
      setExitCode(await undoCommand(opts));
    });
}
