import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { fakeOpenAiPerTest, penguin, tempDir } from "./helpers.js";

// A session another process has open (its holder file names a running process, as `penguin chat`
// or `penguin serve` leave one) is not reverted or deleted behind its back: both are refused,
// naming the process. Once that process is gone, they work.

const API_KEY = "sk-test-penguin-undo-held-0123456789abcdef";

/** The /proc start time of a process (field 22 of its stat), as the holder file records it. */
function startTicks(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] as string;
}

const others: ChildProcess[] = [];
afterEach(() => {
  for (const child of others.splice(0)) child.kill("SIGKILL");
});

describe.runIf(process.platform === "linux")("a session open in another process", () => {
  const start = fakeOpenAiPerTest(API_KEY);

  test("penguin undo and penguin sessions delete refuse it, naming the process; a dry run works", async () => {
    const { env } = await start([
      { tool_calls: [{ name: "write_file", arguments: { file_path: "a.txt", content: "two\n" } }] },
      { text: "Changed." },
    ]);
    const ws = tempDir("ws");
    writeFileSync(join(ws, "a.txt"), "one\n");
    const run = await penguin(["run", "--model", "openai/fake-model", "-w", ws, "-m", "change"], { env });
    expect(run.exitCode).toBe(0);
    const [sessionId] = readdirSync(join(env.PENGUIN_HOME, "scratchpad"));

    const other = spawn("sleep", ["60"], { stdio: "ignore" });
    others.push(other);
    const pid = other.pid as number;
    const bootId = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    const holder = join(env.PENGUIN_HOME, "scratchpad", sessionId as string, "holder.json");
    writeFileSync(
      holder,
      JSON.stringify({ pid, startTicks: startTicks(pid), bootId, since: "2026-12-03T10:00:00.000Z" }),
    );

    const dry = await penguin(["undo", "--dry-run"], { env });
    expect(dry.exitCode).toBe(0);
    const undo = await penguin(["undo"], { env });
    expect(undo.exitCode).toBe(1);
    expect(undo.stderr).toContain(`is open in another process (pid ${pid}, since 2026-12-03T10:00:00.000Z)`);
    expect(readFileSync(join(ws, "a.txt"), "utf8")).toBe("two\n");
    const remove = await penguin(["sessions", "delete", sessionId as string, "--yes"], { env });
    expect(remove.exitCode).toBe(1);
    expect(remove.stderr).toContain(`is open in another process (pid ${pid}`);

    other.kill("SIGKILL");
    await new Promise((resolve) => other.once("exit", resolve));
    const again = await penguin(["undo"], { env });
    expect(again.exitCode).toBe(0);
    expect(readFileSync(join(ws, "a.txt"), "utf8")).toBe("one\n");
  });
});
