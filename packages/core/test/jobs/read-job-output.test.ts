import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type JobsEnvironment, jobsEnvironment, type TempDirs, waitUntil, workspace } from "./support.js";

let dirs: TempDirs;
let jobs: JobsEnvironment;
beforeEach(async () => {
  dirs = await workspace();
});
afterEach(async () => {
  await jobs.env.dispose();
  await dirs.cleanup();
});

describe("read_job_output", () => {
  it("reports a non-zero dropped count once the buffer lost its oldest lines", async () => {
    // Lines "1".."1000" are 3893 characters; the buffer keeps the last 1000: "1000\n", lines
    // 752-999 whole, and the end of line 751, which counts as dropped.
    jobs = jobsEnvironment(dirs, { processes: { unreadBufferChars: 1_000 } });
    await jobs.call("run_command", { purpose: "lots of lines", command: "seq 1 1000", timeout_ms: 0 });
    const job = jobs.processes.get("cmd_1");
    await waitUntil(() => job?.finished === true, "seq to finish");

    const tail = await jobs.call("read_job_output", { job_id: "cmd_1", limit: 3 });
    expect(tail.stop).toBe("completed");
    expect(tail.output).toBe(
      "998\n999\n1000\n[job cmd_1 exited (exit code: 0); lines 998-1000 of 1000; dropped: 751]",
    );

    // An offset into what was dropped starts at the oldest line still held whole.
    const head = await jobs.call("read_job_output", { job_id: "cmd_1", offset: 1, limit: 2 });
    expect(head.output).toBe(
      "752\n753\n[job cmd_1 exited (exit code: 0); lines 752-753 of 1000; dropped: 751; line 1 is no longer held; the window starts at the oldest line kept; next: offset 754]",
    );
  });

  it("reads without waiting and without consuming: wait_job still returns the same output as new", async () => {
    jobs = jobsEnvironment(dirs);
    await jobs.call("run_command", { purpose: "p", command: "echo first; sleep 30", timeout_ms: 0 });
    const job = jobs.processes.get("cmd_1");
    await waitUntil(() => job?.hasUnread === true, "the first line");

    const read = await jobs.call("read_job_output", { job_id: "cmd_1" });
    expect(read.output).toBe("first\n[job cmd_1 running; lines 1-1 of 1; dropped: 0]");
    const again = await jobs.call("read_job_output", { job_id: "cmd_1" });
    expect(again.output).toBe(read.output);
    const waited = await jobs.call("wait_job", { job_id: "cmd_1", timeout_ms: 0 });
    expect(waited.output).toBe("first\n[job cmd_1 is still running after a 0 ms wait]");
  });

  it("reads an exec_command session too: one kind of thing, one id namespace", async () => {
    jobs = jobsEnvironment(dirs);
    const exec = await jobs.call("exec_command", { description: "print", cmd: "printf 'a\\nb\\n'" });
    expect(exec.output).toBe("a\nb\n[exit code: 0]");
    const read = await jobs.call("read_job_output", { job_id: "cmd_1" });
    expect(read.output).toBe("a\nb\n[job cmd_1 exited (exit code: 0); lines 1-2 of 2; dropped: 0]");
  });

  it("caps the window at the configured maximum and cuts overlong lines", async () => {
    jobs = jobsEnvironment(dirs, { limits: { read_job_output: { maxLines: 2, maxLineChars: 5 } } });
    await jobs.call("run_command", { purpose: "p", command: "echo 1234567890; echo b; echo c" });
    const read = await jobs.call("read_job_output", { job_id: "cmd_1", offset: 1, limit: 50 });
    expect(read.output).toBe(
      "12345… [5 more chars]\nb\n[job cmd_1 exited (exit code: 0); lines 1-2 of 3; dropped: 0; limit capped at 2 lines; next: offset 3]",
    );
  });

  it("says when a job has printed nothing yet", async () => {
    jobs = jobsEnvironment(dirs);
    await jobs.call("run_command", { purpose: "p", command: "sleep 30", timeout_ms: 0 });
    const read = await jobs.call("read_job_output", { job_id: "cmd_1" });
    expect(read.output).toBe("(no output yet)\n[job cmd_1 running; 0 lines so far; dropped: 0]");
  });
});
