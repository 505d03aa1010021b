import { type ChildProcess, spawn } from "node:child_process";
import { type FakeLlm, startFakeLlm } from "@penguin/fake-llm";
import { afterEach, describe, expect, test } from "vitest";
import { CLI_BIN, kindOf, readJsonLines, tempDir, traceFiles } from "./helpers.js";
import { processesRunning } from "./pty.js";

const API_KEY = "sk-test-penguin-pipes-0123456789";

/** Durations no other process on the machine uses, so the leftover checks find only ours. */
const PIPE_SLEEP = "986.25";
const CHAT_PIPE_SLEEP = "986.75";
const TERM_SLEEP = "984.25";
const HUP_SLEEP = "984.75";

const longCommand = (seconds: string) => ({
  tool_calls: [
    { name: "exec_command", arguments: { description: "Wait a long time", cmd: `sleep ${seconds}` } },
  ],
});

/**
 * One model turn with two calls that run side by side: a long `sleep` that only an abort ends,
 * and a short one whose result is printed while the long one still runs (that print is the
 * write that meets the closed pipe).
 */
const longAndShort = (seconds: string) => ({
  tool_calls: [
    { name: "exec_command", arguments: { description: "Wait a long time", cmd: `sleep ${seconds}` } },
    { name: "exec_command", arguments: { description: "Wait a moment", cmd: "sleep 1.5" } },
  ],
});

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/** The built `penguin` with piped stdio; `ended` resolves when it exits. */
function spawnPenguin(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [CLI_BIN, ...args], {
    env: { ...process.env, NO_COLOR: "1", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const ended = new Promise<Ended>((resolve) => {
    child.on("exit", (code, signal) => resolve({ code, signal, stderr }));
  });
  return { child, ended, stderr: () => stderr };
}

/**
 * `| head -1` once the task's long command runs: reads one line of `stream`, waits until a
 * process `words` exists, then closes our end of the pipe. Gives the line and whether the process
 * was seen.
 */
async function closeAfterFirstLine(
  stream: NodeJS.ReadableStream & { destroy(): void },
  ...words: string[]
): Promise<{ line: string; sawProcess: boolean }> {
  const line = await new Promise<string>((resolve) => {
    let seen = "";
    const onData = (chunk: Buffer) => {
      seen += chunk.toString("utf8");
      const end = seen.indexOf("\n");
      if (end < 0) return;
      stream.off("data", onData);
      stream.pause();
      resolve(seen.slice(0, end));
    };
    stream.on("data", onData);
  });
  let sawProcess = false;
  for (let i = 0; i < 200 && !sawProcess; i++) {
    sawProcess = (await processesRunning(...words)).length > 0;
    if (!sawProcess) await new Promise((r) => setTimeout(r, 50));
  }
  stream.destroy();
  return { line, sawProcess };
}

const children: ChildProcess[] = [];

describe("a reader that closes the pipe", () => {
  let llm: FakeLlm | undefined;
  afterEach(async () => {
    for (const child of children.splice(0)) child.kill("SIGKILL");
    await llm?.close();
  });

  test("run --json | head -1: the task stops, its commands end, no stack trace, exit code 1", async () => {
    llm = await startFakeLlm({ apiKey: API_KEY, script: [longAndShort(PIPE_SLEEP), { text: "never" }] });
    const dataRoot = tempDir("data");
    const env = { PENGUIN_HOME: dataRoot, OPENAI_API_KEY: API_KEY, OPENAI_BASE_URL: `${llm.url}/v1` };
    const run = spawnPenguin(
      ["run", "--json", "--model", "openai/fake-model", "-w", tempDir("ws"), "-m", "wait"],
      env,
    );
    children.push(run.child);
    run.child.stdin?.end();
    const stdout = run.child.stdout as NodeJS.ReadableStream & { destroy(): void };
    const first = await closeAfterFirstLine(stdout, "sleep", PIPE_SLEEP);
    expect(JSON.parse(first.line).type).toBe("session_meta");
    expect(first.sawProcess).toBe(true);

    const ended = await run.ended;
    // An interrupted task: the documented code for an aborted task, and nothing about EPIPE.
    expect(ended).toMatchObject({ code: 1, signal: null });
    expect(ended.stderr).not.toMatch(/EPIPE|Unhandled|internal error|at .*\.js:\d+/);
    expect(ended.stderr).toContain("stdout was closed by its reader: the task was stopped");
    expect(await processesRunning("sleep", PIPE_SLEEP)).toEqual([]);
    // The trace records the interrupt, so the session can be resumed from it.
    const kinds = readJsonLines(traceFiles(dataRoot)[0]).map(kindOf);
    expect(kinds).toContain("abort");
    expect(kinds.at(-1)).toBe("task_end");
  });

  test("chat whose stderr reader goes away: the chat ends by itself, its commands end, no stack trace", async () => {
    llm = await startFakeLlm({ apiKey: API_KEY, script: [longAndShort(CHAT_PIPE_SLEEP), { text: "never" }] });
    const dataRoot = tempDir("data");
    const env = { PENGUIN_HOME: dataRoot, OPENAI_API_KEY: API_KEY, OPENAI_BASE_URL: `${llm.url}/v1` };
    const chat = spawnPenguin(["chat", "--model", "openai/fake-model", "-w", tempDir("ws")], env);
    children.push(chat.child);
    // The prompt, and stdin stays open: only the closed output can end this chat.
    chat.child.stdin?.write("wait please\n");
    // The activity lines go to stderr: its reader goes away once the command has started.
    chat.child.stderr?.removeAllListeners("data");
    const stderr = chat.child.stderr as NodeJS.ReadableStream & { destroy(): void };
    const first = await closeAfterFirstLine(stderr, "sleep", CHAT_PIPE_SLEEP);
    expect(first.line).toContain("new session");
    expect(first.sawProcess).toBe(true);

    const ended = await chat.ended;
    expect(ended).toMatchObject({ code: 1, signal: null });
    // A crash would have left the command running: the session was disposed.
    expect(await processesRunning("sleep", CHAT_PIPE_SLEEP)).toEqual([]);
    const records = readJsonLines(traceFiles(dataRoot)[0]);
    expect(records.map(kindOf)).toContain("abort");
    expect(records.at(-1)?.payload).toMatchObject({ type: "task_end", status: "aborted" });
  });
});

describe("SIGTERM and SIGHUP end the task and every command it started", () => {
  let llm: FakeLlm | undefined;
  afterEach(async () => {
    for (const child of children.splice(0)) child.kill("SIGKILL");
    await llm?.close();
  });

  /** Starts `penguin <args>` on a fake model whose first turn runs `sleep <seconds>`, and waits for the sleep. */
  async function startWithSleep(args: string[], seconds: string, input: string | undefined) {
    llm = await startFakeLlm({ apiKey: API_KEY, script: [longCommand(seconds), { text: "never" }] });
    const dataRoot = tempDir("data");
    const env = { PENGUIN_HOME: dataRoot, OPENAI_API_KEY: API_KEY, OPENAI_BASE_URL: `${llm.url}/v1` };
    const cli = spawnPenguin([...args, "--model", "openai/fake-model", "-w", tempDir("ws")], env);
    children.push(cli.child);
    // `run` reads no input; the chat's input stays open, so only the signal can end it.
    if (input === undefined) cli.child.stdin?.end();
    else cli.child.stdin?.write(input);
    for (let i = 0; i < 200 && (await processesRunning("sleep", seconds)).length === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await processesRunning("sleep", seconds)).not.toHaveLength(0);
    return { ...cli, dataRoot };
  }

  /** What the trace must show, as after the first Ctrl-C: the interrupt, then the task's end. */
  function expectAbortedTrace(dataRoot: string) {
    const records = readJsonLines(traceFiles(dataRoot)[0]);
    expect(records.map(kindOf)).toContain("abort");
    expect(records.at(-1)?.payload).toMatchObject({ type: "task_end", status: "aborted" });
  }

  test("run: kill <pid> stops the task, ends its command and exits 143", async () => {
    const run = await startWithSleep(["run", "-m", "wait"], TERM_SLEEP, undefined);
    run.child.kill("SIGTERM");
    const ended = await run.ended;
    expect(ended).toMatchObject({ code: 143, signal: null });
    expect(ended.stderr).toContain("SIGTERM: stopping the task");
    expect(ended.stderr).not.toMatch(/internal error/);
    expect(await processesRunning("sleep", TERM_SLEEP)).toEqual([]);
    expectAbortedTrace(run.dataRoot);
  });

  test("chat: a hang-up stops the task, ends its command and exits 129", async () => {
    const chat = await startWithSleep(["chat"], HUP_SLEEP, "wait please\n");
    chat.child.kill("SIGHUP");
    const ended = await chat.ended;
    expect(ended).toMatchObject({ code: 129, signal: null });
    expect(ended.stderr).not.toMatch(/internal error/);
    expect(await processesRunning("sleep", HUP_SLEEP)).toEqual([]);
    expectAbortedTrace(chat.dataRoot);
  });
});
