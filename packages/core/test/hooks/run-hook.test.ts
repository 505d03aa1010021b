import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runHookProcess } from "../../src/hooks/run-hook.js";

// One hook process: limits on time and output, stdin that the hook may ignore, children it leaves
// behind, the user's interrupt.

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "penguin-hook-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const run = (command: string, extra: Partial<Parameters<typeof runHookProcess>[0]> = {}) =>
  runHookProcess({
    command,
    cwd: dir,
    input: '{"x":1}\n',
    timeoutMs: 10_000,
    maxOutputChars: 1_000,
    ...extra,
  });

describe("a hook process", () => {
  it("reads the call on stdin and reports its exit code, stdout and stderr", async () => {
    const result = await run("cat; echo err >&2; exit 3");
    expect(result).toMatchObject({ outcome: "exited", exitCode: 3, stdout: '{"x":1}\n', stderr: "err\n" });
  });

  it("keeps at most max_output_chars of its output and counts the rest", async () => {
    const result = await run("head -c 5000 /dev/zero | tr '\\0' a", { maxOutputChars: 100 });
    expect(result.stdout).toBe("a".repeat(100));
    expect(result.droppedChars).toBe(4900);
  });

  it("may ignore a large stdin without failing", async () => {
    const result = await run("exit 0", { input: "y".repeat(2_000_000) });
    expect(result).toMatchObject({ outcome: "exited", exitCode: 0 });
  });

  it("is done when its shell exits, even if it left a child holding the output open", async () => {
    const result = await run("(sleep 30; echo late) & echo early");
    expect(result).toMatchObject({ outcome: "exited", exitCode: 0, stdout: "early\n" });
  });

  it("is killed, with its whole process group, when its time is up", async () => {
    const result = await run("sleep 30 & sleep 30", { timeoutMs: 200 });
    expect(result.outcome).toBe("timeout");
  });

  it("stops on the user's interrupt", async () => {
    const controller = new AbortController();
    const pending = run("sleep 30", { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    const result = await pending;
    expect(result).toMatchObject({ outcome: "error", interrupted: true, error: "interrupted by the user" });
  });

  it("that cannot start (a missing directory) is an error outcome, not a throw", async () => {
    const result = await run("true", { cwd: join(dir, "missing") });
    expect(result.outcome).toBe("error");
    expect(result.error).toMatch(/ENOENT/);
  });
});
