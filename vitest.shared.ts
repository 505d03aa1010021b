import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "vitest/config";

/**
 * One scratch folder per test run, holding every temp folder the tests make (TMPDIR points
 * into it, and `os.tmpdir()` follows TMPDIR), removed when the run ends (see
 * test-scratch-teardown.ts): a full run makes thousands of workspaces, homes and data roots, and
 * a developer's /tmp should not keep them. `PENGUIN_KEEP_TEST_TMP=1` keeps it for a post-mortem.
 * The name is short: unix socket paths made inside it must stay under ~100 bytes.
 */
export function testScratchRoot(): string {
  const root = mkdtempSync(join(tmpdir(), "pgt-"));
  // The channel to the teardown, which vitest loads as a separate module in this same process.
  process.env.PENGUIN_TEST_SCRATCH = root;
  return root;
}

/**
 * Every test process gets a fresh, empty HOME. Command tools run `bash -lc`, which reads the
 * login profile of whoever runs the tests; a profile that initialises version managers (pyenv
 * rehash takes a lock; a shell killed mid-rehash leaves it behind) turns each command into a
 * wait of up to a minute. Tests must not depend on the machine's dotfiles, and must never write
 * into the real ~/.penguin. Git gets an identity so commands that commit do not stop to ask.
 */
export function hermeticHome(parent: string = tmpdir()): string {
  const home = mkdtempSync(join(parent, "home-"));
  writeFileSync(
    join(home, ".gitconfig"),
    "[user]\n\tname = Penguin Tests\n\temail = tests@penguin.invalid\n",
  );
  return home;
}

// One vitest setting for every package: a JSON report per package lets scripts/test-summary.mjs
// print the single closing line CI reads ("N passed, N failed, N skipped").
export const sharedTestConfig = {
  include: ["test/**/*.test.ts"],
  reporters: ["default", "json"],
  outputFile: { json: ".vitest/results.json" },
  testTimeout: 30_000,
  hookTimeout: 30_000,
};

/** The environment of a hermetic test run: its own TMPDIR (removed at the end) and HOME. */
export function hermeticTestEnv(): { TMPDIR: string; HOME: string } {
  const root = testScratchRoot();
  const scratch = join(root, "tmp");
  mkdirSync(scratch, { recursive: true });
  return { TMPDIR: scratch, HOME: hermeticHome(root) };
}

export const scratchTeardown = new URL("./test-scratch-teardown.ts", import.meta.url).pathname;

export default defineConfig({
  test: { ...sharedTestConfig, env: hermeticTestEnv(), globalSetup: [scratchTeardown] },
});
