import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type CommandSession,
  DEFAULT_UNREAD_BUFFER_CHARS,
  MAX_COMMAND_SESSIONS,
  ProcessManager,
} from "../../src/tools/command/index.js";
import {
  context,
  execTool,
  groupMembers,
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

function started(manager: ProcessManager, cmd: string): CommandSession {
  const result = manager.start({ cmd, cwd: workspace.dir });
  if (!result.ok) throw new Error(result.error);
  return result.session;
}

/** Reads a session's unread output until it has finished. */
async function drainToEnd(session: CommandSession): Promise<string> {
  let output = "";
  while (!session.finished) {
    await session.waitForActivity(1000);
    output += session.takeUnread();
  }
  return output + session.takeUnread();
}

describe("eviction at the cap", () => {
  // 64 login shells at once: a HOME without dotfiles keeps the machine's own profile (pyenv and
  // the like, which serialise on a lock) out of a test about eviction order.
  beforeEach(async () => {
    await processes.disposeAll();
    processes = new ProcessManager({ baseEnv: { ...process.env, HOME: workspace.dir } });
  });

  it("evicts an exited session first, even when a running one was used less recently", async () => {
    expect(MAX_COMMAND_SESSIONS).toBe(64);
    const sessions: CommandSession[] = [];
    for (let i = 1; i <= 64; i++) sessions.push(started(processes, i === 10 ? "exit 0" : "sleep 1000"));
    await waitUntil(() => sessions[9]?.finished === true, "cmd_10 to exit");
    sessions[0]?.touch(); // cmd_1 is no longer the least recently used running session…
    const oldestRunning = sessions[1] as CommandSession;

    started(processes, "sleep 1000"); // the 65th
    expect(processes.get("cmd_10")).toBeUndefined();
    expect(processes.get(oldestRunning.id)).toBeDefined();
    expect(processes.list()).toHaveLength(64);
  });

  it("with nothing exited, evicts the least recently used idle session and ends its process group", async () => {
    const sessions: CommandSession[] = [];
    for (let i = 1; i <= 64; i++) sessions.push(started(processes, "sleep 1000"));
    sessions[0]?.touch(); // cmd_1 was polled: cmd_2 is now the least recently used
    const victim = sessions[1] as CommandSession;
    await waitUntil(() => groupMembers(victim.pid as number).length > 0, "cmd_2 running");

    started(processes, "sleep 1000");
    expect(processes.get("cmd_2")).toBeUndefined();
    expect(processes.get("cmd_1")).toBeDefined();
    expect(processes.get("cmd_65")).toBeDefined();
    await waitUntil(() => groupMembers(victim.pid as number).length === 0, "cmd_2's group to be gone");
  });

  it("never evicts a session a tool call is reading; refuses to start when all are in use", async () => {
    const small = new ProcessManager({ maxSessions: 2 });
    try {
      const a = started(small, "sleep 1000");
      const b = started(small, "sleep 1000");
      a.activeCalls = 1;
      started(small, "sleep 1000");
      expect(small.get(a.id)).toBeDefined();
      expect(small.get(b.id)).toBeUndefined();

      for (const info of small.list()) (small.get(info.id) as CommandSession).activeCalls = 1;
      const refused = small.start({ cmd: "true", cwd: workspace.dir });
      expect(refused).toEqual({
        ok: false,
        error: "all 2 command sessions are in use by running tool calls; wait for one to return and retry",
      });
    } finally {
      await small.disposeAll();
    }
  });
});

describe("disposal", () => {
  it("leaves no orphans: a `sleep 1000 &` started inside a command is gone afterwards", async () => {
    const session = started(processes, "sleep 1000 & echo $!; sleep 1000 & echo $!; wait");
    let output = "";
    await waitUntil(() => {
      output += session.takeUnread();
      return output.split("\n").length >= 3;
    }, "both background pids");
    const pids = output.trim().split("\n").map(Number);
    expect(pids.every(isAlive)).toBe(true);

    await processes.disposeAll();
    expect(pids.filter(isAlive)).toEqual([]);
    expect(groupMembers(session.pid as number)).toEqual([]);
    expect(processes.list()).toEqual([]);
  });

  it("also ends children left behind by a shell that already exited", async () => {
    const session = started(processes, "sleep 1000 & echo $!");
    const output = await drainToEnd(session);
    const pid = Number(output.trim());
    expect(session.exit).toEqual({ kind: "code", code: 0 });
    expect(isAlive(pid)).toBe(true);
    await processes.disposeAll();
    expect(isAlive(pid)).toBe(false);
  });

  it("escalates to SIGKILL for a group that ignores SIGTERM", async () => {
    const manager = new ProcessManager({ terminateGraceMs: 300 });
    const result = manager.start({ cmd: "trap '' TERM; sleep 1000 & echo $!; wait", cwd: workspace.dir });
    if (!result.ok) throw new Error(result.error);
    let output = "";
    await waitUntil(() => {
      output += result.session.takeUnread();
      return output.includes("\n");
    }, "the sleep pid");
    const pid = Number(output.trim());
    await manager.disposeAll();
    expect(isAlive(pid)).toBe(false);
    expect(groupMembers(result.session.pid as number)).toEqual([]);
  });

  it("refuses new commands after disposal", async () => {
    await processes.disposeAll();
    expect(processes.start({ cmd: "true", cwd: workspace.dir })).toEqual({
      ok: false,
      error: "the command sessions of this agent session have been shut down",
    });
  });

  it("kill(id) ends one session's group and keeps its final state readable", async () => {
    const session = started(processes, "echo hi; sleep 1000");
    await waitUntil(() => session.hasUnread, "output");
    expect(await processes.kill(session.id)).toBe(true);
    await waitUntil(() => session.finished, "the session to finish");
    expect(session.exit).toEqual({ kind: "signal", signal: "SIGTERM" });
    expect(session.takeUnread()).toBe("hi\n");
    expect(await processes.kill("cmd_999")).toBe(false);
  });
});

describe("output handling", () => {
  it("streams 100 MB of output through exec_command while the retained buffer stays bounded", async () => {
    const exec = execTool();
    const generator = exec.execute(
      { description: "t", cmd: "head -c 100000000 /dev/zero | tr '\\0' 'a'" },
      context(processes, workspace.dir),
    );
    let seen = 0;
    let maxRetained = 0;
    for (;;) {
      const step = await generator.next();
      const retained = processes.get("cmd_1")?.unreadChars ?? 0;
      maxRetained = Math.max(maxRetained, retained);
      if (step.done) {
        expect(step.value).toEqual({ stopReason: "completed", note: "[exit code: 0]" });
        break;
      }
      const text = (step.value.payload as { output: string }).output;
      const marker = /^\[\.\.\., (\d+) chars of earlier output dropped \.\.\.\]\n/.exec(text);
      seen += marker ? Number(marker[1]) + text.length - marker[0].length : text.length;
    }
    // Every character is either delivered or accounted for by a drop marker.
    expect(seen).toBe(100_000_000);
    expect(maxRetained).toBeLessThanOrEqual(DEFAULT_UNREAD_BUFFER_CHARS);
  });

  it("keeps at most the buffer cap of a backgrounded command's output, with the dropped-output marker", async () => {
    const session = started(processes, "seq 1 200000");
    await waitUntil(() => session.finished, "seq to finish", 20_000);
    expect(session.unreadChars).toBeLessThanOrEqual(DEFAULT_UNREAD_BUFFER_CHARS);
    const text = session.takeUnread();
    const total = Array.from({ length: 200000 }, (_, i) => `${i + 1}\n`).join("").length;
    const marker = `[..., ${total - DEFAULT_UNREAD_BUFFER_CHARS} chars of earlier output dropped ...]\n`;
    expect(text.startsWith(marker)).toBe(true);
    expect(text.length).toBe(marker.length + DEFAULT_UNREAD_BUFFER_CHARS);
    expect(text.endsWith("199999\n200000\n")).toBe(true);
  });

  it("uses a configured unread buffer size and marks what it dropped", async () => {
    const small = new ProcessManager({ unreadBufferChars: 10 });
    try {
      const result = small.start({ cmd: "printf '0123456789abcdefghij'", cwd: workspace.dir });
      if (!result.ok) throw new Error(result.error);
      expect(await drainUntilFinished(result.session)).toBe(
        "[..., 10 chars of earlier output dropped ...]\nabcdefghij",
      );
    } finally {
      await small.disposeAll();
    }
  });

  it("decodes invalid UTF-8 as U+FFFD and keeps multi-byte characters split across writes", async () => {
    const run = await runCall(
      execTool(),
      { description: "t", cmd: "printf 'caf\\xc3'; sleep 0.2; printf '\\xa9 \\xff\\xfe ok\\n'" },
      context(processes, workspace.dir),
    );
    expect(run.output).toBe("café \uFFFD\uFFFD ok\n");
  });

  it("turns binary output into text without raw NUL or other control bytes", async () => {
    const run = await runCall(
      execTool(),
      { description: "t", cmd: "printf 'a\\0b\\x01\\x07c\\td\\r\\n\\x1b[0m'; head -c 4096 /dev/urandom" },
      context(processes, workspace.dir),
    );
    expect(run.output.startsWith("a\uFFFDb\uFFFD\uFFFDc\td\r\n\x1b[0m")).toBe(true);
    expect(run.output).not.toMatch(/[\u0000-\u0008\u000B\u000C\u000E-\u001A\u001C-\u001F]/);
    expect(run.result.note).toBe("[exit code: 0]");
  });
});

async function drainUntilFinished(session: CommandSession): Promise<string> {
  await waitUntil(() => session.finished, "the command to finish");
  return session.takeUnread();
}

describe("a command the model backgrounds", () => {
  it("keeps running after exec_command returns and shows up in list()", async () => {
    const run = await runCall(
      execTool(),
      { description: "t", cmd: "sleep 1000", yield_time_ms: 250 },
      context(processes, workspace.dir),
    );
    const id = processIdOf(run.result);
    expect(processes.list()).toMatchObject([{ id, cmd: "sleep 1000", status: "running", exit: undefined }]);
    expect(processes.liveIds()).toEqual([id]);
  });
});
