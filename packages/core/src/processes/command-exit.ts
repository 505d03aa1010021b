// How a command ended, and the note a call ends with for it.

/** How a command ended: an exit code, or the signal that terminated it, or a failure to start. */
export type CommandExit =
  | { kind: "code"; code: number }
  | { kind: "signal"; signal: NodeJS.Signals }
  | { kind: "spawn-error"; message: string }
  | { kind: "unknown"; reason: UnknownExitReason };

/**
 * Why a command's exit status is unknown. `interrupted`: it ended while Penguin was not running.
 * `adopted`: it ended after a restarted Penguin re-attached to it (its exit status went to its
 * new parent, not to Penguin). `pid-reused`: its pid now belongs to another program.
 */
export type UnknownExitReason = "interrupted" | "adopted" | "pid-reused";

/** The note that ends a call on a finished command: `[exit code: N]` / `[terminated by signal S]`. */
export function exitNote(exit: CommandExit): string {
  switch (exit.kind) {
    case "code":
      return `[exit code: ${exit.code}]`;
    case "signal":
      return `[terminated by signal ${exit.signal}]`;
    case "spawn-error":
      return `[failed to start: ${exit.message}]`;
    case "unknown":
      return UNKNOWN_EXIT_NOTES[exit.reason];
  }
}

const UNKNOWN_EXIT_NOTES: Record<UnknownExitReason, string> = {
  interrupted: "[ended while Penguin was not running; exit code unknown]",
  adopted: "[exited; exit code unknown: it was started before Penguin restarted]",
  "pid-reused":
    "[gone; exit code unknown: its pid now belongs to another program, which was never signalled]",
};
