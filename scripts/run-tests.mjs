#!/usr/bin/env node
// The one test command (README, CI): builds what tests need, type-checks and tests every
// workspace package (turbo, --continue so one red package does not hide the others), then
// prints the summed closing line. Exits non-zero if anything failed.
import { spawnSync } from "node:child_process";

const turbo = spawnSync(
  "pnpm",
  ["exec", "turbo", "run", "typecheck", "test", "--continue", ...process.argv.slice(2)],
  {
    stdio: "inherit",
  },
);
const summary = spawnSync(process.execPath, ["scripts/test-summary.mjs"], { stdio: "inherit" });
process.exit(turbo.status !== 0 ? turbo.status || 1 : summary.status || 0);
