import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultToolLimits } from "@penguin/state";
import { afterAll, describe, expect, it } from "vitest";
import { MAX_COMMAND_SESSIONS, ProcessManager } from "../../src/processes/process-manager.js";
import type { CommandSession } from "../../src/processes/session.js";
import { waitUntil } from "./helpers.js";

// "Command sessions: 64. When full, exited sessions are evicted first, then idle ones by LRU."
// The number is defined once (with exec_command's definition in @penguin/state) and enforced by
// the ProcessManager (processes/process-manager.ts).

describe("the 64-session cap", () => {
  const workspace = mkdtempSync(join(tmpdir(), "penguin-cap-"));
  // A HOME without dotfiles keeps the machine's own login profile out of 65 shell starts.
  const processes = new ProcessManager({ baseEnv: { ...process.env, HOME: workspace } });

  afterAll(async () => {
    await processes.disposeAll();
    rmSync(workspace, { recursive: true, force: true });
  });

  it("is 64 by default, for exec_command sessions and run_command jobs alike", () => {
    expect(MAX_COMMAND_SESSIONS).toBe(64);
    expect(processes.maxSessions).toBe(MAX_COMMAND_SESSIONS);
    expect(defaultToolLimits().jobs.maxJobs).toBe(MAX_COMMAND_SESSIONS);
  });

  it("keeps 64 sessions: the 65th start evicts one that has exited", async () => {
    const sessions: CommandSession[] = [];
    for (let i = 1; i <= MAX_COMMAND_SESSIONS; i++) {
      const started = processes.start({ cmd: "exit 0", cwd: workspace });
      if (!started.ok) throw new Error(started.error);
      sessions.push(started.session);
    }
    await waitUntil(() => sessions.every((session) => session.finished), "every session to exit");
    const extra = processes.start({ cmd: "exit 0", cwd: workspace });
    expect(extra.ok).toBe(true);
    expect(processes.list()).toHaveLength(MAX_COMMAND_SESSIONS);
    expect(processes.get("cmd_1")).toBeUndefined();
    expect(processes.get(`cmd_${MAX_COMMAND_SESSIONS + 1}`)).toBeDefined();
  });
});
