import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ProcessManager } from "../../src/tools/command/index.js";
import {
  context,
  execTool,
  groupMembers,
  inputTool,
  isAlive,
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
const input = inputTool();
const start = (cmd: string, yieldMs = 300) =>
  runCall(exec, { description: "t", cmd, yield_time_ms: yieldMs }, context(processes, workspace.dir));
const send = (args: Record<string, unknown>) =>
  runCall(input, { description: "t", ...args }, context(processes, workspace.dir));

/**
 * Starts a command in the background and reads until `expected` has been printed (a login shell
 * can take a while to start on a busy machine, so the first window may see nothing yet).
 */
async function startUntil(cmd: string, expected: string): Promise<{ id: string; output: string }> {
  const started = await start(cmd);
  const id = processIdOf(started.result);
  let output = started.output;
  for (let i = 0; i < 50 && !output.includes(expected); i++) {
    output += (await send({ process_id: id, yield_time_ms: 200 })).output;
  }
  expect(output).toContain(expected);
  return { id, output };
}

/** Polls until the command exits; returns everything read and the final note. */
async function pollToExit(id: string): Promise<{ output: string; note: string }> {
  let output = "";
  for (let i = 0; i < 50; i++) {
    const poll = await send({ process_id: id, yield_time_ms: 1000 });
    output += poll.output;
    const note = poll.result.note ?? "";
    if (!note.startsWith("[still running")) return { output, note };
  }
  throw new Error(`${id} did not exit`);
}

describe("input_command writes to stdin", () => {
  it("feeds lines to cat and returns what it echoes", async () => {
    const started = await start("cat");
    expect(started.result.note).toContain("still running in the background");
    const id = processIdOf(started.result);

    const first = await send({ process_id: id, chars: "hello\n", yield_time_ms: 1000 });
    expect(first.output).toBe("hello\n");
    expect(first.result).toEqual({ stopReason: "completed", note: `[still running: process_id=${id}]` });

    const second = await send({ process_id: id, chars: "world\n", yield_time_ms: 1000 });
    expect(second.output).toBe("world\n");
  });

  it("lets a command waiting on stdin background, then be fed with read", async () => {
    const started = await start('read -r name; echo "hi $name"; read -r n2; echo "bye $n2"');
    expect(started.output).toBe("");
    const id = processIdOf(started.result);

    const first = await send({ process_id: id, chars: "ada\n", yield_time_ms: 1000 });
    const second = await send({ process_id: id, chars: "bob\n", yield_time_ms: 5000 });
    const rest = second.result.note?.startsWith("[exit")
      ? { output: "", note: second.result.note }
      : await pollToExit(id);
    expect(first.output + second.output + rest.output).toBe("hi ada\nbye bob\n");
    expect(rest.note).toBe("[exit code: 0]");
  });

  it("returns early when the command exits during the wait", async () => {
    const started = await start('read -r x; echo "got $x"');
    const id = processIdOf(started.result);
    const before = Date.now();
    const fed = await send({ process_id: id, chars: "42\n", yield_time_ms: 20_000 });
    expect(fed.output).toBe("got 42\n");
    expect(fed.result).toEqual({ stopReason: "completed", note: "[exit code: 0]" });
    expect(Date.now() - before).toBeLessThan(20_000);
  });

  it("reports a write to a command that has exited, with its final output and exit code", async () => {
    const started = await start("sleep 0.5; echo last words; exit 4");
    const id = processIdOf(started.result);
    await waitUntil(() => processes.get(id)?.finished === true, "the command to exit");
    const write = await send({ process_id: id, chars: "too late\n" });
    expect(write.output).toBe("last words\n");
    expect(write.result).toEqual({
      stopReason: "failed",
      note: `[${id} has already exited; nothing was written to its stdin] [exit code: 4]`,
    });
  });
});

describe("input_command end of input", () => {
  it('"\\u0004" alone closes stdin so a program reading to end-of-file finishes', async () => {
    const started = await start("sort");
    const id = processIdOf(started.result);
    await send({ process_id: id, chars: "pear\napple\n" });
    const closed = await send({ process_id: id, chars: "\u0004", yield_time_ms: 5000 });
    const rest = closed.result.note?.startsWith("[exit")
      ? { output: "", note: closed.result.note }
      : await pollToExit(id);
    expect(closed.output + rest.output).toBe("apple\npear\n");
    expect(rest.note).toBe("[exit code: 0]");
  });

  it("reports a write to a command that closed its stdin, and keeps it running", async () => {
    const { id } = await startUntil("exec 0<&-; echo closed; sleep 1000", "closed");
    let run = await send({ process_id: id, chars: "x\n" });
    // The first write may still fit the pipe before the close is seen; the next one cannot.
    if (run.result.stopReason !== "failed") run = await send({ process_id: id, chars: "y\n" });
    expect(run.result.stopReason).toBe("failed");
    expect(run.result.note).toMatch(/^\[nothing was written: .+\] \[still running: process_id=cmd_1\]$/);
    expect(processes.get(id)?.status).toBe("running");
  });
});

describe("input_command polls", () => {
  it("returns output read once only once", async () => {
    const { id, output } = await startUntil(
      "echo one; sleep 0.6; echo two; sleep 0.6; echo three; sleep 1000",
      "one",
    );
    expect(output).toBe("one\n");
    await waitUntil(() => (processes.get(id)?.unreadChars ?? 0) > 0, "more output");
    const first = await send({ process_id: id, yield_time_ms: 0 });
    expect(first.output).toBe("two\n");
    const second = await send({ process_id: id, yield_time_ms: 1500 });
    expect(second.output).toBe("three\n");
    const third = await send({ process_id: id, yield_time_ms: 300 });
    expect(third.output).toBe("");
    expect(third.result.note).toBe(`[still running: process_id=${id}]`);
  });

  it("polls an exited command for what is left and its exit code, as often as asked", async () => {
    const started = await start("sleep 0.5; echo done; exit 2");
    const id = processIdOf(started.result);
    await waitUntil(() => processes.get(id)?.finished === true, "the command to exit");
    const first = await send({ process_id: id });
    expect(first.output).toBe("done\n");
    expect(first.result).toEqual({ stopReason: "completed", note: "[exit code: 2]" });
    const again = await send({ process_id: id });
    expect(again.output).toBe("");
    expect(again.result.note).toBe("[exit code: 2]");
  });

  it("fails clearly on an unknown process_id and lists the running ones", async () => {
    const started = await start("sleep 1000");
    const id = processIdOf(started.result);
    const run = await send({ process_id: "cmd_999" });
    expect(run.result.stopReason).toBe("failed");
    expect(run.output).toBe(
      `unknown process_id "cmd_999" (it never existed, or it was evicted). Running command sessions: ${id}.`,
    );
  });

  it("says so when no command session is running", async () => {
    const run = await send({ process_id: "cmd_1" });
    expect(run.output).toBe(
      'unknown process_id "cmd_1" (it never existed, or it was evicted). No command session is running.',
    );
  });

  it("fails clearly on malformed arguments", async () => {
    expect((await send({})).output).toBe('missing argument "process_id": a non-empty string is required');
    const started = await start("sleep 1000");
    const id = processIdOf(started.result);
    expect((await send({ process_id: id, chars: 7 })).output).toBe(
      'argument "chars" must be a string, got number',
    );
    expect((await send({ process_id: id, yield_time_ms: [] })).output).toBe(
      'argument "yield_time_ms" must be a number of milliseconds, got []',
    );
  });
});

describe("input_command Ctrl-C", () => {
  it('"\\u0003" alone sends SIGINT to the process group: the trap runs and the sleep child dies', async () => {
    // Ctrl-C after the command printed "ready", as a model would: before that, the login shell
    // may still be reading its profile.
    const { id } = await startUntil(
      "trap 'echo caught SIGINT; exit 130' INT; echo ready; sleep 1000; echo not-reached",
      "ready",
    );
    const pgid = processes.get(id)?.pid as number;
    await waitUntil(() => groupMembers(pgid).length >= 2, "bash and sleep running");
    const sleepPid = groupMembers(pgid).find((pid) => pid !== pgid) as number;

    const interrupted = await send({ process_id: id, chars: "\u0003", yield_time_ms: 5000 });
    const final = interrupted.result.note?.startsWith("[exit")
      ? { output: interrupted.output, note: interrupted.result.note }
      : await pollToExit(id).then((rest) => ({ output: interrupted.output + rest.output, note: rest.note }));
    expect(final.output).toBe("caught SIGINT\n");
    expect(final.note).toBe("[exit code: 130]");
    expect(isAlive(sleepPid)).toBe(false);
    expect(groupMembers(pgid)).toEqual([]);
  });

  it("a command without a trap is terminated by SIGINT", async () => {
    const { id } = await startUntil("echo ready; sleep 1000", "ready");
    const interrupted = await send({ process_id: id, chars: "\u0003", yield_time_ms: 5000 });
    expect(interrupted.result.note).toBe("[terminated by signal SIGINT]");
  });

  it("Ctrl-C mixed into other text is written as a byte, not a signal", async () => {
    const started = await start("cat -v");
    const id = processIdOf(started.result);
    let output = (await send({ process_id: id, chars: "a\u0003b\n", yield_time_ms: 1000 })).output;
    for (let i = 0; i < 20 && !output.includes("\n"); i++) {
      output += (await send({ process_id: id, yield_time_ms: 200 })).output;
    }
    expect(output).toBe("a^Cb\n");
    expect(processes.get(id)?.status).toBe("running");
  });
});
