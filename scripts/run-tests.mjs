#!/usr/bin/env node
// The one test command (README, CI): type-checks and tests every workspace package through
// turbo (which builds what the tests need first; --continue so one red package does not hide
// the others), then prints the summed closing line "N passed, N failed, N skipped".
// Exits non-zero if anything failed. Extra arguments go to turbo (e.g. --filter=@penguin/core).
// One package's tests at a time: the suites start real processes, servers and a browser, and on
// a 2-core machine running them side by side turns generous waits into flaky timeouts.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");

// Reports of an earlier run must never count for this one (turbo restores them on cache hits).
for (const group of ["packages", "apps", "tooling"]) {
  const dir = join(root, group);
  if (!existsSync(dir)) continue;
  for (const name of readdirSync(dir)) rmSync(join(dir, name, ".vitest"), { recursive: true, force: true });
}
const turboBin = join(root, "node_modules", ".bin", "turbo");
const turbo = spawnSync(
  turboBin,
  ["run", "typecheck", "test", "--continue", "--concurrency=1", ...process.argv.slice(2)],
  {
    stdio: "inherit",
    cwd: root,
  },
);
const summary = spawnSync(process.execPath, [join(root, "scripts", "test-summary.mjs")], {
  stdio: "inherit",
  cwd: root,
});
process.exit(turbo.status !== 0 ? turbo.status || 1 : (summary.status ?? 1));
