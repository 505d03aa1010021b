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
  jobs = jobsEnvironment(dirs, { limits: { signal_job: { graceMs: 500 } } });
});
afterEach(async () => {
  await jobs.env.dispose();
  await dirs.cleanup();
});

/**
 * A shell that traps SIGTERM (it says so and keeps going) with a child in its process group; the
 * child's pid is printed so the test can check that the whole group ended.
 */
const STUBBORN =
  "trap 'echo got TERM' TERM; sleep 60 & echo child=$!; echo ready; while true; do sleep 0.05; done";

async function startStubborn(): Promise<{ childPid: number }> {
  await jobs.call("run_command", { purpose: "a stubborn job", command: STUBBORN, timeout_ms: 0 });
  const job = jobs.processes.get("cmd_1");
  let seen = "";
  await waitUntil(() => {
    seen = job?.lineWindow({ limit: 10 }).lines.join("\n") ?? "";
    return seen.includes("ready");
  }, "the job to start");
  return { childPid: Number(/child=(\d+)/.exec(seen)?.[1]) };
}

describe("signal_job", () => {
  it("stop sends SIGTERM to the group, and SIGKILL after the grace to a job that traps it", async () => {
    const { childPid } = await startStubborn();
    const stopped = await jobs.call("signal_job", { job_id: "cmd_1", signal: "stop" });
    expect(stopped.stop).toBe("completed");
    expect(stopped.output).toBe(
      "Job cmd_1 was sent SIGTERM with its whole process group; it was still alive after 500 ms, so it was sent SIGKILL.\n[terminated by signal SIGKILL]",
    );
    // The trap ran: the shell saw SIGTERM before it was killed. Its child is gone too.
    const read = await jobs.call("read_job_output", { job_id: "cmd_1" });
    expect(read.output).toContain("got TERM");
    expect(alive(childPid)).toBe(false);
  });

  it("kill sends SIGKILL at once: the trap never runs", async () => {
    const { childPid } = await startStubborn();
    const killed = await jobs.call("signal_job", { job_id: "cmd_1", signal: "kill" });
    expect(killed.output).toBe(
      "Job cmd_1 was sent SIGKILL with its whole process group.\n[terminated by signal SIGKILL]",
    );
    const read = await jobs.call("read_job_output", { job_id: "cmd_1" });
    expect(read.output).not.toContain("got TERM");
    expect(alive(childPid)).toBe(false);
  });

  it("stop ends a job that does not trap SIGTERM with SIGTERM alone (the default signal)", async () => {
    await jobs.call("run_command", { purpose: "sleeper", command: "sleep 60", timeout_ms: 0 });
    const stopped = await jobs.call("signal_job", { job_id: "cmd_1" });
    expect(stopped.output).toBe(
      "Job cmd_1 was sent SIGTERM with its whole process group and ended.\n[terminated by signal SIGTERM]",
    );
    expect(jobs.processes.get("cmd_1")?.status).toBe("exited");
  });

  it("ends what an exited job left running in its group", async () => {
    await jobs.call("run_command", {
      purpose: "leaves a child",
      command: "sleep 60 >/dev/null 2>&1 & echo $!",
    });
    const job = jobs.processes.get("cmd_1");
    const childPid = Number(job?.lineWindow({ limit: 1 }).lines[0]);
    expect(alive(childPid)).toBe(true);
    const stopped = await jobs.call("signal_job", { job_id: "cmd_1" });
    expect(stopped.output).toBe(
      "Job cmd_1 had already exited; its process group was stopped in case anything it started was still running.\n[exit code: 0]",
    );
    await waitUntil(() => !alive(childPid), "the left-behind child to end", 3_000);
  });
});
