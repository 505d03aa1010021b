import { errorStack } from "@penguin/protocol/stream";
import { main } from "./main.js";
import { exitWhenWritten } from "./process-exit.js";

/** Runs the `penguin` command line of this process and ends the process with its exit code. */
export function runCli(): void {
  main(process.argv.slice(2)).then(
    (code) => exitWhenWritten(code),
    (err: unknown) => {
      // Anything that reaches here is a bug, not a user error: say so plainly, keep the stack.
      process.stderr.write(`penguin: internal error: ${errorStack(err)}\n`);
      return exitWhenWritten(1);
    },
  );
}
