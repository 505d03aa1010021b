// What the benchmark must undo however it ends: server processes, the private PostgreSQL, temp
// folders. Each step registers its undo as soon as the thing exists; `runCleanups` undoes them
// newest first (servers stop before the database they use), once.

/** A cleanup step that has not finished by then is abandoned, so exiting never hangs. */
const CLEANUP_STEP_LIMIT_MS = 15_000;

const steps = [];
let running;

/** Registers `undo` (sync or async); returns a function that runs it now and unregisters it. */
export function onCleanup(undo) {
  const step = { undo, done: false };
  steps.push(step);
  return async () => {
    if (step.done) return;
    step.done = true;
    await undo();
  };
}

/**
 * Runs every registered step not run yet, newest first; a failing step does not stop the others.
 * Steps registered meanwhile (the run goes on while it is being cleaned up, e.g. a server that
 * was starting) are run too before it settles.
 */
export function runCleanups() {
  running ??= (async () => {
    for (;;) {
      const step = steps.findLast((candidate) => !candidate.done);
      if (step === undefined) return;
      step.done = true;
      let timer;
      await Promise.race([
        Promise.resolve()
          .then(step.undo)
          .catch((error) => process.stderr.write(`load benchmark: cleanup failed: ${error.message}\n`)),
        new Promise((resolve) => {
          timer = setTimeout(resolve, CLEANUP_STEP_LIMIT_MS);
        }),
      ]);
      clearTimeout(timer);
    }
  })();
  return running;
}

/**
 * Cleans up and exits when the run outlives `limitMs`, or on SIGINT / SIGTERM (a Ctrl-C leaves
 * no server or PostgreSQL behind).
 */
export function exitCleanlyOn({ limitMs }) {
  const bail = (why, code) => {
    process.stderr.write(`load benchmark: ${why}; cleaning up\n`);
    runCleanups().finally(() => process.exit(code));
  };
  const hardStop = setTimeout(() => bail(`gave up after ${limitMs} ms`, 1), limitMs);
  hardStop.unref();
  process.once("SIGINT", () => bail("interrupted", 130));
  process.once("SIGTERM", () => bail("terminated", 143));
}
