import { rmSync } from "node:fs";
import { basename } from "node:path";

/**
 * vitest global setup: nothing to set up; the returned teardown removes the run's scratch folder
 * (see testScratchRoot in vitest.shared.ts) once every test file has finished.
 */
export default function setup(): () => void {
  return () => {
    // biome-ignore lint/suspicious/noUndeclaredEnvVars: set by vitest.shared.ts in this process, not an input of the task
    const root = process.env.PENGUIN_TEST_SCRATCH;
    // Only a folder this run made (the name is ours), never whatever the variable points at.
    if (!root || !basename(root).startsWith("pgt-") || process.env.PENGUIN_KEEP_TEST_TMP === "1") return;
    try {
      rmSync(root, { recursive: true, force: true, maxRetries: 3 });
    } catch (error) {
      // A process a test left running may still write there; the run's result does not change.
      process.stderr.write(`test scratch folder ${root} not fully removed: ${(error as Error).message}\n`);
    }
  };
}
