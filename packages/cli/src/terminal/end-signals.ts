import { constants } from "node:os";

/**
 * The signals that ask the program to end: `kill <pid>` (SIGTERM) and a closed terminal
 * (SIGHUP). Commands start detached, in their own process groups, so neither reaches them: the
 * program has to end them itself, by stopping the task and disposing the session, as a second
 * Ctrl-C does.
 */
export const END_SIGNALS = ["SIGTERM", "SIGHUP"] as const;
export type EndSignal = (typeof END_SIGNALS)[number];

/** "The exit code after an ending signal is 128 plus its number" (143 for SIGTERM, 129 for SIGHUP). */
export function signalExitCode(signal: EndSignal): number {
  return 128 + constants.signals[signal];
}

/**
 * Calls `handler` for each SIGTERM or SIGHUP (with how many have come so far) instead of Node's
 * default of dying at once; returns the function that puts the default back.
 */
export function onEndSignals(handler: (signal: EndSignal, count: number) => void): () => void {
  let count = 0;
  const listeners = END_SIGNALS.map((signal) => {
    const listener = () => {
      count += 1;
      handler(signal, count);
    };
    process.on(signal, listener);
    return [signal, listener] as const;
  });
  return () => {
    for (const [signal, listener] of listeners) process.off(signal, listener);
  };
}
