import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "vitest/config";

/**
 * Every test process gets a fresh, empty HOME. Command tools run `bash -lc`, which reads the
 * login profile of whoever runs the tests; a profile that initialises version managers (pyenv
 * rehash takes a lock; a shell killed mid-rehash leaves it behind) turns each command into a
 * wait of up to a minute. Tests must not depend on the machine's dotfiles, and must never write
 * into the real ~/.penguin. Git gets an identity so commands that commit do not stop to ask.
 */
export function hermeticHome(): string {
  const home = mkdtempSync(join(tmpdir(), "penguin-test-home-"));
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

export default defineConfig({
  test: { ...sharedTestConfig, env: { HOME: hermeticHome() } },
});
