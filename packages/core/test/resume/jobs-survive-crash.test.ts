import { spawn } from "node:child_process";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { OmniMessage } from "@penguin/protocol";
import { scratchpadDir, scratchpadRoot, tracesDir } from "@penguin/state";
import { readSession } from "@penguin/trace";
import { afterEach, describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { currentBootId } from "../../src/processes/process-identity.js";
import { REGISTRY_FILE, readProcessRecord, writeProcessRecord } from "../../src/processes/registry.js";
import { describeRetainedProcess, retainedProcesses } from "../../src/processes/retained-processes.js";
import { alive, waitUntil } from "../jobs/support.js";
import { collect, MODEL, setup } from "../sdk/fixtures.js";
import { crashDuringJob } from "./session-process.js";

// "Work that survives a crash": the session's process is killed for real (SIGKILL) while a
// run_command job runs; the job goes on, its output goes on being kept, and the resumed session
// finds it again through the process registry in its scratchpad.

const EXTENDED = { tools: { preset: "extended" as const } };

type Env = Awaited<ReturnType<typeof setup>>;
const envs: Env[] = [];
const cleanups: (() => void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  await Promise.all(envs.splice(0).map((e) => e.cleanup()));
});

async function start(script: Parameters<typeof setup>[0]) {
  const env = await setup(script, { config: EXTENDED });
  envs.push(env);
  return env;
}

const call = (name: string, id: string, args: Record<string, unknown>) => ({ id, name, arguments: args });

/** The complete output text of one call, note included. */
function outputOf(messages: OmniMessage[], toolCallId: string): string {
  const found = messages.find(
    (m) =>
      m.payload.type === "tool_call_output" &&
      (m.payload as { tool_call_id: string }).tool_call_id === toolCallId,
  );
  if (!found) throw new Error(`no output for ${toolCallId}`);
  return (found.payload as { output: string }).output;
}

describe("jobs that outlive the session's process (SIGKILL of a real node process)", () => {
  it("killed during run_command: the job keeps running, and the resumed session re-attaches it, reads its output from before and after the kill, waits on it and stops it", async () => {
    const job =
      "echo before-crash; echo $$ > job.pid; while [ ! -f go ]; do sleep 0.05; done; echo after-crash; " +
      "while [ ! -f go2 ]; do sleep 0.05; done; echo while-attached; exec sleep 60";
    const env = await start([
      {
        text: "Starting it.",
        tool_calls: [call("run_command", "call_job", { purpose: "serve", command: job, timeout_ms: 60_000 })],
      },
      { tool_calls: [call("read_job_output", "call_read", { job_id: "cmd_1" })] },
      {
        tool_calls: [
          call("wait_job", "call_wait", { job_id: "cmd_1", pattern: "while-attached", timeout_ms: 20_000 }),
        ],
      },
      { tool_calls: [call("signal_job", "call_stop", { job_id: "cmd_1", signal: "stop" })] },
      { tool_calls: [call("run_command", "call_next", { purpose: "next", command: "echo next-job" })] },
      { text: "Done." },
    ]);
    const pidFile = join(env.workspaceDir, "job.pid");
    const { sessionId, jobPid } = await crashDuringJob(env, pidFile, cleanups, EXTENDED);

    // Penguin is dead; the job is not, and what it prints now is still kept.
    expect(alive(jobPid)).toBe(true);
    writeFileSync(join(env.workspaceDir, "go"), "");
    const scratchpad = scratchpadDir(env.dataRoot, sessionId);
    await waitUntil(
      () => readFileSync(join(scratchpad, "processes", "cmd_1.out"), "utf8").includes("after-crash"),
      "the job's output after the crash to reach its spool",
    );
    expect(retainedProcesses(scratchpad).map((p) => [p.id, p.state, p.pid])).toEqual([
      ["cmd_1", "running", jobPid],
    ]);
    expect(describeRetainedProcess(scratchpad, "cmd_1")).toMatch(
      /^cmd_1 \(run_command\) ".*": running, pid \d+; output \d+ B$/,
    );

    const resumed = await env.agent.resumeSession(sessionId);
    const messages = await collect(resumed.run("Go on.", { approve: allowAll }), (m) => {
      // The wait is under way: the job now prints while it is re-attached.
      if (
        m.payload.type === "tool_call" &&
        (m.payload as { tool_call_id: string }).tool_call_id === "call_wait"
      )
        writeFileSync(join(env.workspaceDir, "go2"), "");
    });
    await resumed.dispose();
    expect(messages.at(-1)?.payload).toMatchObject({ type: "task_end", status: "completed" });

    const read = outputOf(messages, "call_read");
    expect(read).toContain("before-crash");
    expect(read).toContain("after-crash");
    expect(read).toContain("job cmd_1 running");
    const waited = outputOf(messages, "call_wait");
    expect(waited).toContain("while-attached");
    expect(waited).toContain("[pattern /while-attached/ matched");
    const stopped = outputOf(messages, "call_stop");
    expect(stopped).toContain("Job cmd_1 was sent SIGTERM with its whole process group and ended.");
    expect(stopped).toContain("exit code unknown");
    expect(alive(jobPid)).toBe(false);
    // Ids go on from the registry's: the next job is cmd_2, not a second cmd_1.
    expect(outputOf(messages, "call_next")).toContain("next-job");
    expect(retainedProcesses(scratchpad).map((p) => [p.id, p.state])).toEqual([
      ["cmd_1", "exited"],
      ["cmd_2", "exited"],
    ]);
    expect(describeRetainedProcess(scratchpad, "cmd_2")).toContain("exited with exit code 0");

    // The job's id was journaled before it started, by the call that started it.
    const location = { tracesDir: tracesDir(env.dataRoot), scratchpadRoot: scratchpadRoot(env.dataRoot) };
    const effects = readSession(location, sessionId)
      .records.filter((m) => m.payload.type === "tool_effect")
      .map((m) => m.payload);
    expect(effects).toEqual([
      expect.objectContaining({ tool_call_id: "call_job", process_id: "cmd_1" }),
      expect.objectContaining({ tool_call_id: "call_next", process_id: "cmd_2" }),
    ]);
    // The registry and the spool are private.
    expect(statSync(join(scratchpad, "processes", REGISTRY_FILE)).mode & 0o777).toBe(0o600);
    expect(statSync(join(scratchpad, "processes", "cmd_1.out")).mode & 0o777).toBe(0o600);
  });

  it("a job that ends while Penguin is down is marked interrupted (exit code unknown), with all its output kept", async () => {
    const job =
      "echo first-line; echo $$ > job.pid; while [ ! -f go ]; do sleep 0.05; done; echo last-line; exit 3";
    const env = await start([
      {
        tool_calls: [call("run_command", "call_job", { purpose: "build", command: job, timeout_ms: 60_000 })],
      },
      { tool_calls: [call("list_jobs", "call_list", {})] },
      { tool_calls: [call("wait_job", "call_wait", { job_id: "cmd_1", timeout_ms: 5_000 })] },
      { tool_calls: [call("signal_job", "call_stop", { job_id: "cmd_1" })] },
      { text: "Seen." },
    ]);
    const pidFile = join(env.workspaceDir, "job.pid");
    const { sessionId, jobPid } = await crashDuringJob(env, pidFile, cleanups, EXTENDED);
    writeFileSync(join(env.workspaceDir, "go"), "");
    await waitUntil(() => !alive(jobPid), "the job to end while Penguin is down");

    const scratchpad = scratchpadDir(env.dataRoot, sessionId);
    expect(retainedProcesses(scratchpad).map((p) => [p.id, p.state])).toEqual([["cmd_1", "interrupted"]]);
    expect(describeRetainedProcess(scratchpad, "cmd_1")).toContain(
      "interrupted: it ended while Penguin was not running; exit code unknown",
    );

    const resumed = await env.agent.resumeSession(sessionId);
    const messages = await collect(resumed.run("What happened?", { approve: allowAll }));
    await resumed.dispose();
    expect(messages.at(-1)?.payload).toMatchObject({ type: "task_end", status: "completed" });

    const listed = outputOf(messages, "call_list");
    expect(listed).toContain("cmd_1 exited (ended while Penguin was not running; exit code unknown)");
    expect(listed).toContain("purpose: build");
    const waited = outputOf(messages, "call_wait");
    expect(waited).toContain("first-line");
    expect(waited).toContain("last-line");
    expect(waited).toContain("[ended while Penguin was not running; exit code unknown]");
    expect(outputOf(messages, "call_stop")).toContain("nothing was signalled");
    // The registry now says so itself, and the output is still there.
    const record = readProcessRecord(join(scratchpad, "processes"), "cmd_1");
    expect(record).toMatchObject({ id: "cmd_1", state: "interrupted" });
    expect(record?.exit).toBeUndefined();
    expect(readFileSync(join(scratchpad, "processes", "cmd_1.out"), "utf8")).toBe("first-line\nlast-line\n");
  });

  it("pid reuse: a recorded pid that now names another program (another start time) is never signalled, and is reported as gone", async () => {
    const env = await start([
      { tool_calls: [call("signal_job", "call_kill", { job_id: "cmd_1", signal: "kill" })] },
      { tool_calls: [call("read_job_output", "call_read", { job_id: "cmd_1" })] },
      { text: "Left it alone." },
    ]);
    const first = await env.agent.createSession({ workspaceDir: env.workspaceDir, model: MODEL });
    await first.dispose();
    // Another program, which now has the pid the registry holds; the record's start time is not its own.
    const stranger = spawn("sleep", ["60"], { detached: true, stdio: "ignore" });
    cleanups.push(() => stranger.kill("SIGKILL"));
    const pid = stranger.pid as number;
    const scratchpad = scratchpadDir(env.dataRoot, first.id);
    const registry = join(scratchpad, "processes");
    writeProcessRecord(registry, {
      id: "cmd_1",
      origin: "run_command",
      command: "npm run dev",
      cwd: env.workspaceDir,
      pid,
      pgid: pid,
      start_ticks: "1",
      boot_id: currentBootId() ?? "no-boot-id",
      started_at: Date.now() - 60_000,
      output_file: "cmd_1.out",
      state: "running",
    });
    writeFileSync(join(registry, "cmd_1.out"), "listening on 3000\n");
    expect(retainedProcesses(scratchpad).map((p) => [p.id, p.state])).toEqual([["cmd_1", "reused-pid"]]);
    expect(describeRetainedProcess(scratchpad, "cmd_1")).toContain(
      `gone: pid ${pid} now belongs to another program, which was never signalled`,
    );

    const resumed = await env.agent.resumeSession(first.id);
    const messages = await collect(resumed.run("Stop the old server.", { approve: allowAll }));
    await resumed.dispose();
    expect(messages.at(-1)?.payload).toMatchObject({ type: "task_end", status: "completed" });

    expect(outputOf(messages, "call_kill")).toContain("nothing was signalled");
    expect(outputOf(messages, "call_read")).toContain("listening on 3000");
    expect(outputOf(messages, "call_read")).toContain("its pid now belongs to another program");
    // Neither the kill, nor the resumed session's shutdown, touched the other program.
    expect(alive(pid)).toBe(true);
    expect(retainedProcesses(scratchpad).map((p) => [p.id, p.state])).toEqual([["cmd_1", "reused-pid"]]);
  });
});
