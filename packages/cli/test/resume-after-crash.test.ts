import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { retainedProcesses } from "@penguin/core";
import { type FakeLlm, startFakeLlm } from "@penguin/fake-llm";
import { execa } from "execa";
import { afterEach, describe, expect, test } from "vitest";
import { CLI_BIN, penguin, readJsonLines, tempDir, traceFiles } from "./helpers.js";

// A `penguin run` killed for real (SIGKILL) while its run_command call waits on a job: the job
// outlives it. `penguin sessions show` then lists the uncertain call with Penguin's check and
// the job with its state; `penguin run --resume` tells the user both on stderr before the task,
// and the model gets its one notice.

const API_KEY = "sk-test-penguin-crash-resume-0123456789";
const JOB = "echo $$ > job.pid; echo ready; exec sleep 60";

let llm: FakeLlm | undefined;
const cleanups: (() => void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  await llm?.close();
  llm = undefined;
});

async function waitUntil(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Ends the job's process group, by the pid it wrote itself (once the test is over, or failed). */
function killJobLater(pidFile: string): void {
  cleanups.push(() => {
    if (!existsSync(pidFile)) return;
    try {
      process.kill(-Number(readFileSync(pidFile, "utf8").trim()), "SIGKILL");
    } catch {
      // Already gone.
    }
  });
}

/** A data root whose agent has the extended preset (run_command and the job tools). */
function extendedDataRoot(): string {
  const dataRoot = tempDir("data");
  mkdirSync(join(dataRoot, "agents", "default"), { recursive: true });
  writeFileSync(join(dataRoot, "agents", "default", "system_config.yaml"), "tools:\n  preset: extended\n");
  return dataRoot;
}

/** A `penguin run` killed (SIGKILL) while its run_command call waits on a job that goes on running. */
async function crashedRunWithJob() {
  llm = await startFakeLlm({
    apiKey: API_KEY,
    script: [
      {
        tool_calls: [
          {
            id: "call_job",
            name: "run_command",
            arguments: { purpose: "serve", command: JOB, timeout_ms: 60_000 },
          },
        ],
      },
      { text: "The server still runs." },
    ],
  });
  const dataRoot = extendedDataRoot();
  const ws = tempDir("ws");
  const env = {
    PENGUIN_HOME: dataRoot,
    HOME: tempDir("home"),
    OPENAI_API_KEY: API_KEY,
    OPENAI_BASE_URL: `${llm.url}/v1`,
  };
  const pidFile = join(ws, "job.pid");
  killJobLater(pidFile);

  const run = execa(
    process.execPath,
    [CLI_BIN, "run", "--model", "openai/fake-model", "-w", ws, "-m", "Start the server."],
    { env: { NO_COLOR: "1", ...env }, extendEnv: true, reject: false, input: "" },
  );
  await waitUntil(() => existsSync(pidFile) && statSync(pidFile).size > 0, "the job to write its pid");
  const [trace] = traceFiles(dataRoot);
  const id = String(readJsonLines(trace)[0].payload.session_id);
  // What the session's process registry holds for the job, read as the SDK reads it.
  const recordedPid = () =>
    retainedProcesses(join(dataRoot, "scratchpad", id)).find((job) => job.id === "cmd_1")?.pid;
  await waitUntil(() => recordedPid() !== undefined, "the job's pid to be recorded");
  run.kill("SIGKILL");
  expect((await run).signal).toBe("SIGKILL");
  const jobPid = Number(readFileSync(pidFile, "utf8").trim());
  expect(alive(jobPid)).toBe(true);

  return { id, env, jobPid };
}

describe("after penguin run is killed while a job runs", () => {
  test("sessions show lists the uncertain call with Penguin's check and the job; run --resume reports both before the task", async () => {
    const { id, env, jobPid } = await crashedRunWithJob();
    const shown = await penguin(["sessions", "show", id], { env });
    expect(shown.exitCode).toBe(0);
    expect(shown.stdout).toMatch(/uncertain steps/);
    expect(shown.stdout).toMatch(/call_job run_command .*job\.pid/);
    expect(shown.stdout).toMatch(
      new RegExp(`Penguin's check: cmd_1 \\(run_command\\) ".*": running, pid ${jobPid}; output \\d+ B`),
    );
    expect(shown.stdout).toMatch(
      /commands and jobs\n\s+cmd_1\s+running\s+pid \d+\s+".*sleep 60"\s+output \d+ B/,
    );

    const json = await penguin(["sessions", "show", id, "--json"], { env });
    const parsed = JSON.parse(json.stdout) as {
      uncertain: { toolCallId: string; check: { verdict: string; process?: string } }[];
      processes: { id: string; state: string; pid: number; command: string; outputBytes: number }[];
    };
    expect(parsed.uncertain).toMatchObject([
      { toolCallId: "call_job", check: { verdict: "unknown", process: expect.stringContaining("running") } },
    ]);
    expect(parsed.processes).toMatchObject([{ id: "cmd_1", state: "running", pid: jobPid, command: JOB }]);
    expect(parsed.processes[0]?.outputBytes).toBeGreaterThan(0);

    // The resumed run: the report on stderr, before the task; stdout stays JSON lines.
    const resumed = await penguin(["run", "--resume", id, "--json", "-m", "Go on."], { env });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    for (const line of resumed.stdout.trim().split("\n")) expect(() => JSON.parse(line)).not.toThrow();
    expect(resumed.stdout).not.toContain("this session stopped while");
    expect(resumed.stderr).toContain("this session stopped while 1 step was under way");
    expect(resumed.stderr).toMatch(/call_job run_command .*\n\s+Penguin's check: cmd_1 \(run_command\)/);
    expect(resumed.stderr).toContain("the model is told and checks them before it goes on");
    expect(resumed.stderr).toMatch(
      /commands and jobs that were running when the session stopped:\n\s+cmd_1\s+running \(re-attached\)\s+pid \d+/,
    );
    expect(resumed.stderr.indexOf("this session stopped")).toBeLessThan(resumed.stderr.indexOf("trace:"));

    // The model's first request after the resume carries the notice, jobs line included.
    const body = JSON.stringify(llm?.requests.at(-1)?.body);
    expect(body).toContain("[uncertain_steps]");
    expect(body).toContain("cmd_1 (re-attached, still running)");
  });

  test("chat --resume reports the same under the line that names the session", async () => {
    const { id, env } = await crashedRunWithJob();
    const chat = await penguin(["chat", "--resume", id], { env, input: "/exit\n" });
    expect(chat.exitCode, chat.stderr).toBe(0);
    const output = chat.stdout + chat.stderr;
    expect(output).toMatch(
      new RegExp(`resumed session ${id} in .*\n(.*\n)*this session stopped while 1 step was under way`),
    );
    expect(output).toMatch(/call_job run_command .*\n\s+Penguin's check: cmd_1 \(run_command\)/);
    expect(output).toMatch(/cmd_1\s+running \(re-attached\)\s+pid \d+/);
  });

  test("run --resume of a session that ended cleanly prints no report", async () => {
    llm = await startFakeLlm({ apiKey: API_KEY, script: [{ text: "Done." }, { text: "Again." }] });
    const dataRoot = extendedDataRoot();
    const env = {
      PENGUIN_HOME: dataRoot,
      HOME: tempDir("home"),
      OPENAI_API_KEY: API_KEY,
      OPENAI_BASE_URL: `${llm.url}/v1`,
    };
    const first = await penguin(["run", "--model", "openai/fake-model", "-w", tempDir("ws"), "-m", "hi"], {
      env,
    });
    expect(first.exitCode).toBe(0);
    const id = String(readJsonLines(traceFiles(dataRoot)[0] ?? "")[0].payload.session_id);
    const again = await penguin(["run", "--resume", id, "-m", "again"], { env });
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toContain("Again.");
    expect(again.stderr).not.toContain("stopped while");
    expect(again.stderr).not.toContain("commands and jobs");
  });
});
