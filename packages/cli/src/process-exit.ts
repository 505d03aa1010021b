import type { Writable } from "node:stream";

/**
 * How long the exit waits for stdout and stderr to take what is still queued for them (a
 * reader that never reads must not hold the exit either).
 */
export const OUTPUT_FLUSH_WAIT_MS = 2_000;

function flushed(stream: Writable): Promise<void> {
  if (stream.writableLength === 0 || stream.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, OUTPUT_FLUSH_WAIT_MS);
    stream.once("drain", done);
    stream.once("close", done);
    stream.once("error", done);
    function done() {
      clearTimeout(timer);
      stream.off("drain", done);
      stream.off("close", done);
      stream.off("error", done);
      resolve();
    }
  });
}

/**
 * Ends the process with `code` once the command is done and its output is written. The CLI
 * does not wait for Node's event loop to empty: a tool the task no longer waits for (a call
 * that timed out, a request still in flight, a handle something left open) must not keep a
 * script or CI job waiting after the task has ended and the session is disposed.
 */
export async function exitWhenWritten(code: number): Promise<never> {
  process.exitCode = code;
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  process.exit(code);
}
