import { execFileSync } from "node:child_process";
import { join, resolve } from "node:path";
import { execa } from "execa";
import { describe, expect, test } from "vitest";
import { CLI_BIN, fakeOpenAiPerTest, tempDir } from "./helpers.js";

// `penguin run` is used from scripts and CI: once the task has ended it must exit, whatever a
// tool is still doing. Before, a read_file on a named pipe kept the process alive long after
// task_end (and after Ctrl-C), until it was killed.

const API_KEY = "sk-test-penguin-exit-0123456789abcdef";
const KEEP_ALIVE = resolve(import.meta.dirname, "fixtures/keep-alive.mjs");
/** Far longer than a run takes, far shorter than "never": a hung CLI is killed and the test fails. */
const HUNG_AFTER_MS = 45_000;

async function runCli(args: string[], env: Record<string, string>, nodeFlags: string[] = []) {
  const r = await execa(process.execPath, [...nodeFlags, CLI_BIN, ...args], {
    env: { NO_COLOR: "1", ...env },
    extendEnv: true,
    input: "",
    reject: false,
    timeout: HUNG_AFTER_MS,
  });
  return { exitCode: r.exitCode, timedOut: r.timedOut, stdout: String(r.stdout), stderr: String(r.stderr) };
}

const lines = (stdout: string) =>
  stdout
    .split("\n")
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as { type: string; payload: Record<string, unknown> });

describe("penguin run exits once the task has ended", () => {
  const start = fakeOpenAiPerTest(API_KEY);

  test("exits after task_end when the model had read_file open a FIFO nobody writes to", async () => {
    const workspace = tempDir("ws");
    execFileSync("mkfifo", [join(workspace, "pipe")]);
    const { env } = await start([
      { tool_calls: [{ id: "call_pipe", name: "read_file", arguments: { file_path: "pipe" } }] },
      { text: "The pipe cannot be read." },
    ]);
    const r = await runCli(
      ["run", "--json", "--model", "openai/fake-model", "-w", workspace, "-m", "read it"],
      env,
    );
    expect(r.timedOut).toBe(false);
    expect(r.exitCode).toBe(0);
    const records = lines(r.stdout);
    const output = records.find((m) => m.payload.type === "tool_call_output")?.payload;
    expect(output).toMatchObject({ tool_call_id: "call_pipe", stop_reason: "failed" });
    expect(String(output?.output)).toContain("it is a named pipe (FIFO), not a regular file");
    expect(records.at(-1)?.payload).toMatchObject({ type: "task_end", status: "completed" });
  });

  test("exits with the task's code although something the task left behind still holds the event loop", async () => {
    const { env } = await start([{ text: "Done." }]);
    const r = await runCli(["run", "--model", "openai/fake-model", "-w", tempDir("ws"), "-m", "hi"], env, [
      "--import",
      KEEP_ALIVE,
    ]);
    expect(r.timedOut).toBe(false);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("Done.");
  });

  test("exits with the failed task's code too, its output written whole", async () => {
    const { env } = await start([{ error: { status: 400, message: "bad request" } }]);
    const r = await runCli(
      ["run", "--json", "--model", "openai/fake-model", "-w", tempDir("ws"), "-m", "hi"],
      env,
      ["--import", KEEP_ALIVE],
    );
    expect(r.timedOut).toBe(false);
    expect(r.exitCode).toBe(1);
    expect(lines(r.stdout).at(-1)?.payload).toMatchObject({ type: "task_end", status: "failed" });
  });
});
