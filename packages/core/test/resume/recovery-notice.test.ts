import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { alive, waitUntil } from "../jobs/support.js";
import { chatMessages, collect, MODEL, setup } from "../sdk/fixtures.js";
import { crashDuringJob } from "./session-process.js";

// The notice a resumed session's model gets about what a crash (a real SIGKILL of the session's
// process) left: the jobs that outlived it, re-attached or ended while Penguin was down, in a
// couple of lines; and only the calls still uncertain when the first task starts.

const EXTENDED = { tools: { preset: "extended" as const, writeGuard: false } };
const CRASH_CHILD = join(dirname(fileURLToPath(import.meta.url)), "../journal/child-crash.mjs");

type Env = Awaited<ReturnType<typeof setup>>;
const envs: Env[] = [];
const cleanups: (() => void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  await Promise.all(envs.splice(0).map((e) => e.cleanup()));
});

async function start(script: Parameters<typeof setup>[0]): Promise<Env> {
  const env = await setup(script, { config: EXTENDED });
  envs.push(env);
  return env;
}

const textOf = (content: unknown) => (typeof content === "string" ? content : JSON.stringify(content));

/** The harness notices of request `n` that mention `tag`. */
function noticesIn(env: Env, n: number, tag: string): string[] {
  return chatMessages(env.llm, n)
    .filter((m) => m.role === "user" && textOf(m.content).includes(`[${tag}]`))
    .map((m) => textOf(m.content));
}

const JOB_CALL = (command: string) => ({
  id: "call_job",
  name: "run_command",
  arguments: { purpose: "serve", command, timeout_ms: 60_000 },
});

describe("the resume notice names the jobs a crash left", () => {
  it("a job still running is named as re-attached, next to the uncertain call that started it", async () => {
    const env = await start([
      { tool_calls: [JOB_CALL("echo $$ > job.pid; echo ready; exec sleep 60")] },
      { text: "The server still runs." },
    ]);
    const pidFile = join(env.workspaceDir, "job.pid");
    const { sessionId, jobPid } = await crashDuringJob(env, pidFile, cleanups, EXTENDED);
    expect(alive(jobPid)).toBe(true);

    const resumed = await env.agent.resumeSession(sessionId);
    const messages = await collect(resumed.run("Go on.", { approve: allowAll }));
    expect(messages.at(-1)?.payload).toMatchObject({ type: "task_end", status: "completed" });
    await resumed.dispose();

    const [notice, ...others] = noticesIn(env, 1, "uncertain_steps");
    expect(others).toEqual([]);
    expect(notice).toContain("run_command (call_job)");
    expect(notice).toMatch(/cmd_1 \(run_command\) ".*": running, pid \d+/);
    expect(notice).toContain(
      "Commands and jobs that were running when the session stopped: cmd_1 (re-attached, still running).",
    );
    expect(notice).toContain("wait_job and read_job_output work on them");
    expect(notice?.split("\n").length).toBeLessThanOrEqual(8);
    expect(noticesIn(env, 1, "surviving_jobs")).toEqual([]);
  });

  it("a job that ended while Penguin was down is named so, and not again at the next resume", async () => {
    const env = await start([
      { tool_calls: [JOB_CALL("echo $$ > job.pid; while [ ! -f go ]; do sleep 0.05; done; exit 3")] },
      {
        tool_calls: [
          {
            id: "call_resolve",
            name: "resolve_execution_activity",
            arguments: { tool_call_id: "call_job", decision: "accept", evidence: "cmd_1 ran and ended." },
          },
        ],
      },
      { text: "It ended." },
      { text: "Nothing left." },
    ]);
    const pidFile = join(env.workspaceDir, "job.pid");
    const { sessionId, jobPid } = await crashDuringJob(env, pidFile, cleanups, EXTENDED);
    writeFileSync(join(env.workspaceDir, "go"), "");
    await waitUntil(() => !alive(jobPid), "the job to end while Penguin is down");

    const resumed = await env.agent.resumeSession(sessionId);
    await collect(resumed.run("What happened?", { approve: allowAll }));
    await resumed.dispose();
    const [notice] = noticesIn(env, 1, "uncertain_steps");
    expect(notice).toContain("cmd_1 (ended while Penguin was down; exit code unknown)");

    // The call is resolved and the job's end is known now: the next resume has nothing to tell.
    const again = await env.agent.resumeSession(sessionId);
    await collect(again.run("Anything else?", { approve: allowAll }));
    await again.dispose();
    const sent = chatMessages(env.llm, 3).map((m) => textOf(m.content));
    expect(sent.filter((text) => text.includes("[surviving_jobs]"))).toEqual([]);
    // Only the first resume's notice, kept in the context: none was added.
    expect(sent.filter((text) => text.includes("[uncertain_steps]"))).toHaveLength(1);
  });
});

describe("the resume notice is built when the first task starts", () => {
  it("a call the user resolves between resumeSession and the run is left out of it", async () => {
    const env = await start([
      {
        tool_calls: [
          { id: "c_write", name: "write_file", arguments: { file_path: "a.txt", content: "after\n" } },
        ],
      },
      { text: "Going on." },
    ]);
    writeFileSync(join(env.workspaceDir, "a.txt"), "before\n");
    const child = spawn(
      process.execPath,
      [
        CRASH_CHILD,
        env.dataRoot,
        env.workspaceDir,
        MODEL,
        "Change it.",
        "before-output",
        JSON.stringify(EXTENDED),
      ],
      { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, HOME: env.root } },
    );
    let stdout = "";
    child.stdout.on("data", (chunk) => {
      stdout += String(chunk);
    });
    const signal = await new Promise((resolve) => child.once("exit", (_code, sig) => resolve(sig)));
    expect(signal).toBe("SIGKILL");
    const sessionId = (JSON.parse(stdout.split("\n")[0] ?? "{}") as { session_id: string }).session_id;

    const resumed = await env.agent.resumeSession(sessionId);
    const listed = await resumed.uncertainSteps();
    expect(listed.ok && listed.steps.map((step) => step.entry.toolCallId)).toEqual(["c_write"]);
    expect(
      await resumed.resolve({
        toolCallId: "c_write",
        decision: "accept",
        evidence: "a.txt has the new text",
      }),
    ).toMatchObject({ ok: true });
    await collect(resumed.run("Go on.", { approve: allowAll }));
    await resumed.dispose();

    const sent = chatMessages(env.llm, 1).map((m) => textOf(m.content));
    expect(sent.some((text) => text.includes("Go on."))).toBe(true);
    expect(sent.filter((text) => text.includes("[uncertain_steps]"))).toEqual([]);
  });
});
