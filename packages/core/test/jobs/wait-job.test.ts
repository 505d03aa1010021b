import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type JobsEnvironment, jobsEnvironment, type TempDirs, workspace } from "./support.js";

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

/**
 * A tiny HTTP server that says where it listens only after a delay, the way a dev server
 * prints "listening" once it is ready. `node` runs it: the test's own runtime.
 */
const SERVER = `node -e '
const http = require("node:http");
const server = http.createServer((req, res) => res.end("pong"));
setTimeout(() => server.listen(0, "127.0.0.1", () => {
  console.log("compiling done");
  console.log("listening on http://127.0.0.1:" + server.address().port);
}), 300);
'`;

describe("wait_job", () => {
  it("waits for a line matching the pattern: the server is ready and answers", async () => {
    const run = await jobs.call("run_command", {
      purpose: "start the server",
      command: SERVER,
      timeout_ms: 0,
    });
    expect(run.output).toContain("job_id=cmd_1");
    const waited = await jobs.call("wait_job", {
      job_id: "cmd_1",
      pattern: "^listening on",
      timeout_ms: 20_000,
    });
    expect(waited.stop).toBe("completed");
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(waited.output)?.[1];
    expect(url, waited.output).toBeDefined();
    expect(waited.output).toMatch(
      /\[pattern \/\^listening on\/ matched the line "listening on http:\/\/127\.0\.0\.1:\d+"\] \[job cmd_1 is still running\]$/,
    );
    // It matched because the server was listening, and it still is.
    const response = await fetch(`${url}/ping`);
    expect(await response.text()).toBe("pong");
    expect(jobs.processes.get("cmd_1")?.status).toBe("running");
  });

  it("reports a pattern that does not appear within the wait, and leaves the job running", async () => {
    await jobs.call("run_command", {
      purpose: "a quiet job",
      command: "echo warming up; sleep 30",
      timeout_ms: 0,
    });
    // The job's first line is awaited first: on a loaded machine its shell may take longer to
    // start than the short wait below, and the second wait is about a pattern never printed.
    const started = await jobs.call("wait_job", { job_id: "cmd_1", pattern: "^warming", timeout_ms: 20_000 });
    expect(started.output).toContain("warming up");
    const waited = await jobs.call("wait_job", { job_id: "cmd_1", pattern: "ready", timeout_ms: 500 });
    expect(waited.stop).toBe("completed");
    expect(waited.output).toBe(
      "[no output]\n[pattern /ready/ not seen within 500 ms] [job cmd_1 is still running]",
    );
    expect(jobs.processes.get("cmd_1")?.status).toBe("running");
  });

  it("says so when the job exits before the pattern appears", async () => {
    await jobs.call("run_command", {
      purpose: "fails",
      command: "sleep 0.3; echo boom; exit 2",
      timeout_ms: 0,
    });
    const waited = await jobs.call("wait_job", { job_id: "cmd_1", pattern: "ready", timeout_ms: 10_000 });
    expect(waited.output).toBe("boom\n[pattern /ready/ not seen before the job exited] [exit code: 2]");
  });

  it("matches a line that arrives in pieces, and one still being written", async () => {
    await jobs.call("run_command", {
      purpose: "pieces",
      command: "printf 'rea'; sleep 0.3; printf 'dy now'; sleep 30",
      timeout_ms: 0,
    });
    const waited = await jobs.call("wait_job", {
      job_id: "cmd_1",
      pattern: "^ready now$",
      timeout_ms: 10_000,
    });
    expect(waited.output).toContain('[pattern /^ready now$/ matched the line "ready now"]');
  });

  it("without a pattern, returns only output not returned before, and the exit", async () => {
    await jobs.call("run_command", {
      purpose: "two parts",
      command: "echo one; sleep 0.6; echo two",
      timeout_ms: 250,
    });
    const waited = await jobs.call("wait_job", { job_id: "cmd_1" });
    expect(waited.output).toBe("two\n[exit code: 0]");
    const again = await jobs.call("wait_job", { job_id: "cmd_1", timeout_ms: 0 });
    expect(again.output).toBe("[no output]\n[exit code: 0]");
  });

  it("answers an invalid pattern and an unknown job with failed outputs the model can act on", async () => {
    await jobs.call("run_command", { purpose: "p", command: "true" });
    const bad = await jobs.call("wait_job", { job_id: "cmd_1", pattern: "([a-" });
    expect(bad.stop).toBe("failed");
    expect(bad.output).toMatch(/^pattern is not a valid JavaScript regular expression: /);
    const unknown = await jobs.call("wait_job", { job_id: "cmd_9" });
    expect(unknown.stop).toBe("failed");
    expect(unknown.output).toBe(
      'unknown job_id "cmd_9" (it never existed, or it was evicted to make room). Jobs of this session: cmd_1 (exited).',
    );
  });
});
