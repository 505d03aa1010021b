import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const repo = resolve(import.meta.dirname, "../../../..");
const core = resolve(import.meta.dirname, "../..");

describe("examples/sdk/custom-tool.mjs", () => {
  const dir = mkdtempSync(join(tmpdir(), "penguin-example-run-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("registers a custom tool and runs it on the replay cassette through the built package", async () => {
    // A project folder where `@penguin/core` is installed (linked to the built package).
    for (const file of ["custom-tool.mjs", "custom-tool.cassette.yaml"]) {
      copyFileSync(join(repo, "examples/sdk", file), join(dir, file));
    }
    mkdirSync(join(dir, "node_modules/@penguin"), { recursive: true });
    symlinkSync(core, join(dir, "node_modules/@penguin/core"), "dir");
    const { stdout } = await run(process.execPath, [join(dir, "custom-tool.mjs")], { timeout: 30_000 });
    expect(stdout).toContain('tool call: word_count {"text":"the quick brown fox"}');
    expect(stdout).toContain("approval: allow");
    expect(stdout).toContain("tool output: 4 words");
    expect(stdout).toContain("assistant: There are 4 words.");
    expect(stdout).toContain("task end: completed");
    expect(stdout).toMatch(/trace: .*\.jsonl/);
  });
});
