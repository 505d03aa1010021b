#!/usr/bin/env node
// The README's first command ends here: a real agent session on the offline `replay` model.
// The model's turns come from examples/quickstart.cassette.yaml; the tools run for real in a
// fresh temporary workspace, and the trace lands under .penguin-quickstart/ in this checkout.
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const repo = resolve(import.meta.dirname, "..");
const workspace = mkdtempSync(join(tmpdir(), "penguin-quickstart-"));
// biome-ignore lint/suspicious/noUndeclaredEnvVars: a plain script, not a turbo task
const dataRoot = process.env.PENGUIN_HOME ?? join(repo, ".penguin-quickstart");

console.error(`workspace: ${workspace}`);
const result = spawnSync(
  process.execPath,
  [
    join(repo, "packages/cli/dist/bin.cjs"),
    "run",
    "--model",
    `replay:${join(repo, "examples/quickstart.cassette.yaml")}`,
    "--workspace",
    workspace,
    "-m",
    "Write a small program that prints the first ten Fibonacci numbers and their sum, and run it.",
  ],
  { stdio: "inherit", env: { ...process.env, PENGUIN_HOME: dataRoot } },
);
process.exit(result.status ?? 1);
