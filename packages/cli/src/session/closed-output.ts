export type OutputStream = "stdout" | "stderr";

/**
 * `penguin run --json … | head -1`: the reader goes away while the task still runs. A failed
 * write to stdout or stderr is then the reader's choice (or a terminal that went away), not a
 * crash: the first one calls `onClosed` once, so the command can stop the task, dispose the
 * session (which ends every process group the task started) and exit quietly. Later writes to the
 * closed stream are dropped by Node without another error event.
 */
export function whenOutputCloses(
  onClosed: (stream: OutputStream, error: NodeJS.ErrnoException) => void,
  streams: Record<OutputStream, NodeJS.WritableStream> = { stdout: process.stdout, stderr: process.stderr },
): void {
  let called = false;
  const fail = (stream: OutputStream) => (error: NodeJS.ErrnoException) => {
    if (called) return;
    called = true;
    onClosed(stream, error);
  };
  // The listeners stay for the life of the process: a write may fail at any later moment (the
  // closing summary too), and a stream error without a listener is an uncaught exception.
  streams.stdout.on("error", fail("stdout"));
  streams.stderr.on("error", fail("stderr"));
}

/**
 * The line that says why the task stopped, for the stream that still works. A closed pipe is the
 * reader's choice and needs no errno; any other failure (a full disk, an I/O error) names it.
 */
export function closedOutputNote(stream: OutputStream, error: NodeJS.ErrnoException): string {
  const why = error.code === "EPIPE" ? "was closed by its reader" : `failed (${error.code ?? error.message})`;
  return `${stream} ${why}: the task was stopped`;
}
