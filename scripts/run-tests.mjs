#!/usr/bin/env node
// The one test command (README, CI): type-checks and tests every workspace package through
// turbo (which builds what the tests need first; --continue so one red package does not hide
// the others), then prints the summed closing line "N passed, N failed, N skipped".
// Exits non-zero if anything failed. Extra arguments go to turbo (e.g. --filter=@penguin/core).
import { spawnSync } from "node:child_process";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
const turboBin = join(root, "node_modules", ".bin", "turbo");
const turbo = spawnSync(turboBin, ["run", "typecheck", "test", "--continue", ...process.argv.slice(2)], {
  stdio: "inherit",
  cwd: root,
});
const summary = spawnSync(process.execPath, [join(root, "scripts", "test-summary.mjs")], {
  stdio: "inherit",
  cwd: root,
});
process.exit(turbo.status !== 0 ? turbo.status || 1 : (summary.status ?? 1));
