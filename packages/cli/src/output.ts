/** One line to stdout: what the command was asked for (tables, YAML, a trace). */
export const out = (line = ""): void => {
  process.stdout.write(`${line}\n`);
};

/** One line to stderr: notes, warnings and questions, so stdout stays clean for pipes. */
export const note = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

let guarded = false;

/**
 * `penguin trace <id> | head` closes the pipe before the trace is printed: that is the reader's
 * choice, not an error, so the command ends quietly instead of printing an EPIPE stack.
 */
export function endQuietlyOnClosedPipe(): void {
  if (guarded) return;
  guarded = true;
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(0);
    throw error;
  });
}
