import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { createAgent } from "../../src/sdk/agent.js";
import {
  alive,
  type JobsEnvironment,
  jobsEnvironment,
  type TempDirs,
  waitUntil,
  workspace,
} from "./support.js";

let dirs: TempDirs;
let jobs: JobsEnvironment;
beforeEach(async () => {
  dirs = await workspace();
});
afterEach(async () => {
  await jobs?.env.dispose();
  await dirs.cleanup();
});

describe("list_jobs", () => {
  it("lists run_command jobs and exec_command sessions together, with purpose, state, timings and output", async () => {
    jobs = jobsEnvironment(dirs);
    await jobs.call("exec_command", { description: "print the date", cmd: "echo today" });
    await jobs.call("run_command", {
      purpose: "watch the tests",
      command: "echo line 1; echo line 2; echo line 3; echo line 4; sleep 60",
      timeout_ms: 0,
    });
    await waitUntil(() => jobs.processes.get("cmd_2")?.lineWindow({ limit: 9 }).totalLines === 4, "output");

    const listed = await jobs.call("list_jobs", {});
    expect(listed.stop).toBe("completed");
    const text = listed.output;
    expect(text.split("\n")[0]).toBe("2 jobs (2 of at most 64 kept):");
    const [exec, run] = text.split("\n\n").slice(1);
    expect(exec).toMatch(/^cmd_1 exited \(exit code: 0\) \(exec_command, pid \d+\)$/m);
    expect(exec).toContain("  purpose: print the date\n  command: echo today\n");
    expect(exec).toMatch(/ ran \d+(\.\d)? m?s, ended \d+(\.\d)? m?s ago/);
    expect(exec).toContain("  output: 1 line, 0 chars not yet returned, dropped: 0\n  | today");
    expect(run).toMatch(/^cmd_2 running \(run_command, pid \d+\)$/m);
    expect(run).toContain("  purpose: watch the tests\n");
    expect(run).toContain(`  directory: ${dirs.workspaceDir}\n`);
    expect(run).toMatch(/ running for \d+/);
    // The newest three lines (the configured tail), and everything counted as not yet returned.
    expect(run).toContain(
      "  output: 4 lines, 28 chars not yet returned, dropped: 0\n  | line 2\n  | line 3\n  | line 4",
    );
    expect(run).not.toContain("| line 1");

    const running = await jobs.call("list_jobs", { state: "running" });
    expect(running.output.split("\n")[0]).toBe("1 job running (2 of at most 64 kept):");
    expect(running.output).not.toContain("cmd_1");
  });

  it("says so when there are none", async () => {
    jobs = jobsEnvironment(dirs);
    const listed = await jobs.call("list_jobs", {});
    expect(listed.output).toBe("0 jobs (0 of at most 64 kept).");
  });
});

describe("jobs and exec_command sessions share one cap", () => {
  it("a run_command job and exec_command sessions count against the same cap and evict one another", async () => {
    jobs = jobsEnvironment(dirs, { processes: { maxSessions: 2 } });
    await jobs.call("exec_command", { description: "background", cmd: "sleep 60", yield_time_ms: 250 });
    await jobs.call("run_command", { purpose: "server", command: "sleep 60", timeout_ms: 0 });
    const execPid = jobs.processes.get("cmd_1")?.pid as number;
    expect(jobs.processes.list().map((j) => j.id)).toEqual(["cmd_1", "cmd_2"]);

    // Full: the next start evicts the least recently used idle one, the exec_command session,
    // and ends its process group. Ids go on in the one namespace.
    const third = await jobs.call("run_command", { purpose: "another", command: "echo three" });
    expect(third.output).toBe("three\n[exit code: 0]");
    expect(jobs.processes.list().map((j) => j.id)).toEqual(["cmd_2", "cmd_3"]);
    await waitUntil(() => !alive(execPid), "the evicted session's group to end");
    const gone = await jobs.call("input_command", { description: "poll", process_id: "cmd_1" });
    expect(gone.stop).toBe("failed");
    expect(gone.output).toContain('unknown process_id "cmd_1"');
  });

  it("takes its size and the buffer of each job from tools.limits.jobs in the agent's config", async () => {
    const cassette = join(dirs.root, "cassette.yaml");
    await writeFile(cassette, stringify({ turns: [] }));
    const agent = await createAgent({
      dataRoot: join(dirs.root, "data"),
      config: { tools: { preset: "extended", limits: { jobs: { maxJobs: 3, bufferChars: 4096 } } } },
      logger: { warn: () => {} },
    });
    const session = await agent.createSession({
      workspaceDir: dirs.workspaceDir,
      model: `replay:${cassette}`,
    });
    expect(session.processes.maxSessions).toBe(3);
    expect(session.processes.unreadBufferChars).toBe(4096);
    await session.dispose();
  });
});
