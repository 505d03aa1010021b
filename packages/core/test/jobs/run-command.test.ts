import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
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
  jobs = jobsEnvironment(dirs);
});
afterEach(async () => {
  await jobs.env.dispose();
  await dirs.cleanup();
});

describe("run_command", () => {
  it("returns the output and exit code of a command that ends within its wait", async () => {
    const run = await jobs.call("run_command", { purpose: "count", command: "seq 1 3; exit 3" });
    expect(run.stop).toBe("completed");
    expect(run.output).toBe("1\n2\n3\n[exit code: 3]");
  });

  it("keeps a job that outlives its wait running in the background, and wait_job collects its end", async () => {
    const marker = join(dirs.root, "finished.txt");
    const run = await jobs.call("run_command", {
      purpose: "a slow build",
      command: `echo started; sleep 1.5; echo done; touch '${marker}'`,
      timeout_ms: 300,
    });
    expect(run.stop).toBe("completed");
    expect(run.output).toBe(
      "started\n[still running as job_id=cmd_1; use wait_job, read_job_output or signal_job]",
    );
    const job = jobs.processes.get("cmd_1");
    expect(job?.status).toBe("running");
    expect(job?.purpose).toBe("a slow build");
    expect(job?.origin).toBe("run_command");

    // The wait ended, the command did not: it finishes on its own and wait_job returns only the
    // output that came after the first call.
    const waited = await jobs.call("wait_job", { job_id: "cmd_1", timeout_ms: 10_000 });
    expect(waited.stop).toBe("completed");
    expect(waited.output).toBe("done\n[exit code: 0]");
    expect(job?.status).toBe("exited");
  });

  it("returns at once with timeout_ms 0, leaving the command to run", async () => {
    const run = await jobs.call("run_command", { purpose: "serve", command: "sleep 30", timeout_ms: 0 });
    expect(run.output).toContain("[still running as job_id=cmd_1;");
    const pid = jobs.processes.get("cmd_1")?.pid as number;
    expect(alive(pid)).toBe(true);
  });

  it("is not stopped by the call's own timeout: the job keeps running", async () => {
    const short = jobsEnvironment(dirs, {
      edit: (d) => (d.name === "run_command" ? { ...d, timeoutMs: 1_200 } : d),
    });
    try {
      const run = await short.call("run_command", {
        purpose: "long",
        command: "echo hi; sleep 30",
        timeout_ms: 60_000,
      });
      // The wait is capped one second below the call's timeout, so the call returns by itself.
      expect(run.output).toContain("[still running as job_id=cmd_1;");
      expect(short.processes.get("cmd_1")?.status).toBe("running");
    } finally {
      await short.env.dispose();
    }
  });

  it("runs in directory, relative to the workspace, and refuses one that does not exist", async () => {
    const { mkdir } = await import("node:fs/promises");
    await mkdir(join(dirs.workspaceDir, "sub"));
    await writeFile(join(dirs.workspaceDir, "sub", "here.txt"), "x");
    const run = await jobs.call("run_command", { purpose: "look", command: "ls; pwd", directory: "sub" });
    expect(run.output).toBe(`here.txt\n${join(dirs.workspaceDir, "sub")}\n[exit code: 0]`);
    const missing = await jobs.call("run_command", { purpose: "look", command: "ls", directory: "nope" });
    expect(missing.stop).toBe("failed");
    expect(missing.output).toBe(`directory does not exist: ${join(dirs.workspaceDir, "nope")}`);
  });

  it("stops the job with its process group when the user interrupts the call", async () => {
    const controller = new AbortController();
    const { toolCall } = await import("@penguin/protocol");
    const messages = [];
    setTimeout(() => controller.abort(), 400);
    for await (const message of jobs.env.executeTool(
      toolCall("run_command", { purpose: "wait", command: "sleep 30 & wait", timeout_ms: 20_000 }, "c_int"),
      { signal: controller.signal },
    ))
      messages.push(message);
    const job = jobs.processes.get("cmd_1");
    await waitUntil(() => job?.status === "exited", "the interrupted job to end");
    expect(job?.exit).toEqual({ kind: "signal", signal: "SIGTERM" });
  });

  it("answers a blank purpose or command with a failed output and starts nothing", async () => {
    const blank = await jobs.call("run_command", { purpose: "   ", command: "echo x" });
    expect(blank.stop).toBe("failed");
    expect(blank.output).toBe('missing argument "purpose": a non-empty string is required');
    const negative = await jobs.call("run_command", { purpose: "p", command: "echo x", timeout_ms: -5 });
    expect(negative.stop).toBe("failed");
    expect(negative.output).toContain("timeout_ms");
    expect(jobs.processes.list()).toEqual([]);
  });
});
