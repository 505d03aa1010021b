import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, test } from "vitest";
import { readManifest } from "../src/launch/code-cache.js";
import { fakeOpenAiPerTest, penguin, tempDir } from "./helpers.js";

// The one-file CLI names the code that checks configs by its SHA-256 (start-up-bundle-entry.ts), so
// a config it checked is remembered beside the file and its next start builds no schema for it.
// What must hold for a user: the memo never outlives a change to the file, and is only this build's.

const DIST = resolve(import.meta.dirname, "../dist");
const startFake = fakeOpenAiPerTest("sk-test-checked-config-0123456789");

interface Memo {
  checked?: { code: string; config: { max_turns: number } };
}

describe("a config checked by this build", () => {
  test("is remembered under the build's SHA-256, and an edit to the file is checked again", async () => {
    const sha256 = readManifest(join(DIST, "cli.cjs.json"))?.sha256;
    expect(sha256).toMatch(/^[0-9a-f]{64}$/);
    const { env } = await startFake([{ text: "First." }, { text: "Second." }]);
    const run = () =>
      penguin(["run", "--model", "openai/fake-model", "-w", tempDir("ws"), "-m", "hi"], { env });

    const first = await run();
    expect(first.exitCode, first.stderr).toBe(0);
    const agentDir = join(env.PENGUIN_HOME, "agents", "default");
    const memoFile = join(agentDir, ".system_config.yaml.parsed.json");
    const memo = JSON.parse(readFileSync(memoFile, "utf8")) as Memo;
    expect(memo.checked?.code).toBe(sha256);
    expect(memo.checked?.config.max_turns).toBe(-1);

    // An invalid edit is reported from the YAML, line and field, not covered by the memo.
    const file = join(agentDir, "system_config.yaml");
    const text = readFileSync(file, "utf8");
    writeFileSync(file, `max_turns: 0\n${text}`);
    const refused = await run();
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toContain("system_config.yaml:1:");
    expect(refused.stderr).toContain("max_turns");

    // A valid edit takes effect at once and is remembered in its turn.
    writeFileSync(file, `max_turns: 5\n${text}`);
    const second = await run();
    expect(second.exitCode, second.stderr).toBe(0);
    expect(second.stdout).toContain("Second.");
    const after = JSON.parse(readFileSync(memoFile, "utf8")) as Memo;
    expect(after.checked).toEqual({ code: sha256, config: expect.objectContaining({ max_turns: 5 }) });
  });
});
