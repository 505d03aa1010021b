import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { liveRegexWorkers } from "../../src/tools/extended/regex-matcher.js";
import {
  type JobsEnvironment,
  jobsEnvironment,
  runCall,
  type TempDirs,
  waitUntil,
  workspace,
} from "./support.js";

// wait_job tests its pattern against each new line of output in a worker thread: a pattern that
// backtracks for hours (`(a+)+$` on 40 a's and a b is 2^40 steps) ends the wait with a note after
// `regexTimeoutMs`, instead of freezing the process with the job and every other session.

let dirs: TempDirs;
let jobs: JobsEnvironment;
beforeEach(async () => {
  dirs = await workspace();
  jobs = jobsEnvironment(dirs, { limits: { wait_job: { regexTimeoutMs: 200 } } });
});
afterEach(async () => {
  await jobs.env.dispose();
  await waitUntil(() => liveRegexWorkers() === 0, "the regex worker threads to end");
  await dirs.cleanup();
});

describe("wait_job with a catastrophic pattern", () => {
  it("ends the wait with a note, the job keeps running, and a later wait still matches", async () => {
    await jobs.call("run_command", {
      purpose: "prints a line the pattern hangs on, then its ready line",
      command: `printf '%s\\n' ${"a".repeat(40)}b; sleep 3; echo ready; sleep 30`,
      timeout_ms: 0,
    });
    const hung = await jobs.call("wait_job", { job_id: "cmd_1", pattern: "(a+)+$", timeout_ms: 20_000 });
    expect(hung.stop).toBe("failed");
    expect(hung.output).toBe(
      `${"a".repeat(40)}b\n[pattern /(a+)+$/ took longer than 0.2 s on one line of output (catastrophic backtracking?), so the wait ended: simplify it (avoid nested quantifiers like (a+)+), or wait without a pattern] [job cmd_1 is still running]`,
    );
    expect(jobs.processes.get("cmd_1")?.status).toBe("running");
    await waitUntil(() => liveRegexWorkers() === 0, "the hung pattern's worker to end");

    const ready = await jobs.call("wait_job", {
      job_id: "cmd_1",
      pattern: "^READY$|^ready$",
      timeout_ms: 20_000,
    });
    expect(ready.stop).toBe("completed");
    expect(ready.output).toBe(
      'ready\n[pattern /^READY$|^ready$/ matched the line "ready"] [job cmd_1 is still running]',
    );
  });

  it("ends promptly as an interrupted wait, leaving the job running", async () => {
    const patient = jobsEnvironment(dirs, { limits: { wait_job: { regexTimeoutMs: 600_000 } } });
    try {
      await patient.call("run_command", {
        purpose: "prints a line the pattern hangs on",
        command: `printf '%s\\n' ${"a".repeat(40)}b; sleep 30`,
        timeout_ms: 0,
      });
      const interrupt = new AbortController();
      const args = { job_id: "cmd_1", pattern: "(a+)+$", timeout_ms: 20_000 };
      const wait = runCall(patient.env, "wait_job", args, "call_wait", { signal: interrupt.signal });
      await waitUntil(() => liveRegexWorkers() === 1, "the regex worker to start");
      interrupt.abort();
      const out = (await wait).complete;
      expect(out.stop_reason).toBe("aborted");
      expect(patient.processes.get("cmd_1")?.status).toBe("running");
    } finally {
      await patient.env.dispose();
    }
  });
});
