import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { OmniMessage } from "@penguin/protocol";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ProcessManager } from "../../src/tools/command/index.js";
import {
  context,
  deltaText,
  execTool,
  groupMembers,
  inputTool,
  processIdOf,
  runCall,
  tempWorkspace,
  waitUntil,
} from "./helpers.js";

let processes: ProcessManager;
let workspace: { dir: string; cleanup: () => void };

beforeEach(() => {
  processes = new ProcessManager();
  workspace = tempWorkspace();
});

afterEach(async () => {
  await processes.disposeAll();
  workspace.cleanup();
});

const exec = execTool();
const call = (args: Record<string, unknown>, signal?: AbortSignal) =>
  runCall(exec, { description: "test", ...args }, context(processes, workspace.dir, signal));

describe("exec_command in the foreground", () => {
  it("returns the full output and [exit code: 0] as the note when the command finishes", async () => {
    const run = await call({ cmd: "echo hello; echo world" });
    expect(run.output).toBe("hello\nworld\n");
    expect(run.result).toEqual({ stopReason: "completed", note: "[exit code: 0]" });
  });

  it("reports a non-zero exit code in the note and still completes the call", async () => {
    const run = await call({ cmd: "echo oops >&2; exit 3" });
    expect(run.output).toBe("oops\n");
    expect(run.result).toEqual({ stopReason: "completed", note: "[exit code: 3]" });
  });

  it("reports the signal that terminated the command", async () => {
    const run = await call({ cmd: "kill -TERM $$" });
    expect(run.result.note).toBe("[terminated by signal SIGTERM]");
  });

  it("interleaves stdout and stderr in arrival order", async () => {
    const run = await call({ cmd: "echo 1; sleep 0.1; echo 2 >&2; sleep 0.1; echo 3" });
    expect(run.output).toBe("1\n2\n3\n");
  });

  it("streams output as deltas while the command runs, not only at the end", async () => {
    const run = await call({ cmd: "echo first; sleep 0.5; echo second" });
    expect(run.deltas.length).toBeGreaterThanOrEqual(2);
    expect(run.output).toBe("first\nsecond\n");
  });

  it("does not wait for a background child that keeps the output pipe open", async () => {
    const run = await call({ cmd: "sleep 30 & echo started" });
    expect(run.output).toBe("started\n");
    expect(run.result.note).toBe("[exit code: 0]");
  });

  it("runs a login shell (bash -lc) that stays usable for pipelines and builtins", async () => {
    const run = await call({ cmd: "shopt -q login_shell && echo login; printf 'b\\na\\n' | sort" });
    expect(run.output).toBe("login\na\nb\n");
  });
});

describe("exec_command working directory", () => {
  it("runs in the workspace by default", async () => {
    const run = await call({ cmd: "pwd -P" });
    expect(run.output.trim()).toBe(realpathSync(workspace.dir));
  });

  it("resolves a relative workdir against the workspace", async () => {
    mkdirSync(path.join(workspace.dir, "sub", "dir"), { recursive: true });
    const run = await call({ cmd: "pwd -P", workdir: "sub/dir" });
    expect(run.output.trim()).toBe(realpathSync(path.join(workspace.dir, "sub", "dir")));
  });

  it("accepts an absolute workdir", async () => {
    const other = tempWorkspace();
    try {
      const run = await call({ cmd: "pwd -P", workdir: other.dir });
      expect(run.output.trim()).toBe(realpathSync(other.dir));
    } finally {
      other.cleanup();
    }
  });

  it("fails clearly when the workdir does not exist, without starting anything", async () => {
    const run = await call({ cmd: "echo never", workdir: "missing" });
    expect(run.result.stopReason).toBe("failed");
    expect(run.output).toBe(`workdir does not exist: ${path.join(workspace.dir, "missing")}`);
    expect(processes.list()).toEqual([]);
  });

  it("fails clearly when the workdir is a file", async () => {
    writeFileSync(path.join(workspace.dir, "file.txt"), "x");
    const run = await call({ cmd: "echo never", workdir: "file.txt" });
    expect(run.result.stopReason).toBe("failed");
    expect(run.output).toContain("workdir is not a directory:");
  });
});

describe("exec_command arguments", () => {
  it("fails clearly when cmd is missing or empty", async () => {
    for (const args of [{}, { cmd: "" }, { cmd: 42 }]) {
      const run = await call(args);
      expect(run.result.stopReason).toBe("failed");
      expect(run.output).toBe('missing argument "cmd": a non-empty string is required');
    }
  });

  it("fails clearly when yield_time_ms is not a number", async () => {
    const run = await call({ cmd: "true", yield_time_ms: "soon" });
    expect(run.result.stopReason).toBe("failed");
    expect(run.output).toBe('argument "yield_time_ms" must be a number of milliseconds, got "soon"');
  });

  it("fails clearly, without throwing, on a command the OS cannot pass to exec (a NUL byte)", async () => {
    const run = await call({ cmd: "echo a\u0000b" });
    expect(run.result.stopReason).toBe("failed");
    expect(run.output).toMatch(/^the command could not be started: .*null bytes/);
  });

  it("fails clearly when the shell cannot be started", async () => {
    const broken = new ProcessManager({ baseEnv: { ...process.env, PENGUIN_SHELL: "/nonexistent/bash" } });
    try {
      const run = await runCall(exec, { description: "t", cmd: "echo hi" }, context(broken, workspace.dir));
      expect(run.result).toEqual({
        stopReason: "failed",
        note: "[failed to start: spawn /nonexistent/bash ENOENT]",
      });
    } finally {
      await broken.disposeAll();
    }
  });

  it("ignores the description argument", async () => {
    const run = await runCall(exec, { cmd: "echo ok" }, context(processes, workspace.dir));
    expect(run.output).toBe("ok\n");
  });
});

describe("exec_command backgrounding", () => {
  it("moves a command that outruns yield_time_ms to the background with a process_id", async () => {
    const run = await call({ cmd: "echo before; sleep 2; echo after", yield_time_ms: 300 });
    expect(run.result.stopReason).toBeUndefined();
    expect(run.result.note).toMatch(
      /^\[still running in the background: process_id=cmd_\d+; use input_command to poll, write stdin or send Ctrl-C\]$/,
    );
    const id = processIdOf(run.result);
    expect(processes.get(id)?.status).toBe("running");

    const input = inputTool();
    let collected = "";
    let note = "";
    for (let i = 0; i < 20 && !note.startsWith("[exit code"); i++) {
      const poll = await runCall(
        input,
        { description: "poll", process_id: id },
        context(processes, workspace.dir),
      );
      collected += poll.output;
      note = poll.result.note ?? "";
    }
    // "before" may come in the first window or the first poll (the login shell's start-up time
    // varies); either way each line arrives exactly once.
    expect(run.output + collected).toBe("before\nafter\n");
    expect(note).toBe("[exit code: 0]");
  });

  it("clamps a yield_time_ms below 250 up to 250", async () => {
    const started = Date.now();
    const run = await call({ cmd: "sleep 1000", yield_time_ms: 1 });
    expect(run.result.note).toContain("still running in the background");
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });

  it("caps yield_time_ms one second below the tool timeout", async () => {
    // With a 1.5 s timeout the window is 500 ms: the requested minute would exceed the test's timeout.
    const shortTimeout = execTool({ timeoutMs: 1500 });
    const run = await runCall(
      shortTimeout,
      { description: "t", cmd: "sleep 1000", yield_time_ms: 60_000 },
      context(processes, workspace.dir),
    );
    expect(run.result.note).toContain("still running in the background");
  });
});

describe("exec_command aborts", () => {
  it("on a user interrupt, ends the foreground command's whole process group", async () => {
    const controller = new AbortController();
    const generator = exec.execute(
      { description: "t", cmd: "sleep 1000 & sleep 1000; echo unreachable" },
      context(processes, workspace.dir, controller.signal),
    );
    const pending = generator.next();
    await waitUntil(() => processes.get("cmd_1") !== undefined, "the command to start");
    const pgid = processes.get("cmd_1")?.pid as number;
    await waitUntil(() => groupMembers(pgid).length >= 3, "bash and both sleeps running");
    controller.abort("interrupt");
    const step = await pending;
    expect(step.done).toBe(true);
    expect(step.value).toMatchObject({ stopReason: "aborted" });
    await waitUntil(() => groupMembers(pgid).length === 0, "the process group to be gone");
  });

  it("on a timeout, leaves the foreground command running in the background", async () => {
    const controller = new AbortController();
    const generator = exec.execute(
      { description: "t", cmd: "echo so-far; sleep 1000" },
      context(processes, workspace.dir, controller.signal),
    );
    const first = await generator.next();
    expect(first.done).toBe(false);
    expect(deltaText(first.value as OmniMessage)).toBe("so-far\n");
    controller.abort("timeout");
    const last = await generator.next();
    expect(last).toEqual({
      done: true,
      value: { note: expect.stringContaining("still running in the background: process_id=cmd_1") },
    });
    expect(processes.get("cmd_1")?.status).toBe("running");
  });
});
