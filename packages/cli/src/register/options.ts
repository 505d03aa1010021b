import type { Command } from "commander";

/** The exit code a command's action hands back to `main`. */
export type SetExitCode = (code: number) => void;

export const DATA_DIR_FLAG = "--data-dir <dir>";
export const DATA_DIR_HELP = "the data root (default: $PENGUIN_HOME, else ~/.penguin/data)";

/** "All commands take `--data-dir <dir>`." */
export function withDataDir(command: Command): Command {
  return command.option(DATA_DIR_FLAG, DATA_DIR_HELP);
}
