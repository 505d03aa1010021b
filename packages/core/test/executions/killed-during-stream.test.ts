import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import type { Session } from "../../src/sdk/session.js";
import type { Execution, ExecutionRead } from "../../src/sdk/session-executions.js";
import { collect, kind, RETRY_FAST, setup } from "../sdk/fixtures.js";
import { type Line, payloadOf, type SessionProcess, spawnSessionProcess } from "./process-fixtures.js";

// A session's process is killed (SIGKILL) while the model streams its second reply. Its task reads
// back as an interrupted execution with everything the process recorded, reading changes nothing,
// and the resumed session's model continues it with resume_execution.

type Env = Awaited<ReturnType<typeof setup>>;
const envs: Env[] = [];
const processes: SessionProcess[] = [];
afterEach(async () => {
  for (const p of processes.splice(0)) p.cleanup();
  await Promise.all(envs.splice(0).map((e) => e.cleanup()));
});

const EXTENDED = { tools: { preset: "extended" as const } };
const exec = (cmd: string, id: string) => ({
  id,
  name: "exec_command",
  arguments: { description: "run", cmd },
});

function pageOf(read: ExecutionRead) {
  if (!read.ok) throw new Error(read.error);
  return read;
}

function listed(session: Session): Execution[] {
  const found = session.executions();
  if (!found.ok) throw new Error(found.error);
  return found.executions;
}

describe("an execution killed during a model stream (SIGKILL of a real process)", () => {
  it("reads as interrupted with nothing recorded lost, reading changes nothing, and resume_execution continues it", async () => {
    const env = await setup(
      [
        { text: "First a command.", tool_calls: [exec("echo ran >> runs.txt; echo ran-once", "call_first")] },
        {
          text: "A long answer that will never finish streaming.",
          chunk_size: 4,
          stall: { after_chunks: 2 },
        },
        // After the resume: the model reads the execution, then continues it.
        {
          tool_calls: [
            { id: "call_resume", name: "resume_execution", arguments: { execution_id: "root/1" } },
          ],
        },
        { text: "Continued and done." },
      ],
      { config: EXTENDED },
    );
    envs.push(env);
    const run = spawnSessionProcess(env, "Do the thing.", EXTENDED);
    processes.push(run);
    const { session_id: sessionId } = (await run.waitFor((line) => "session_id" in line)) as {
      session_id: string;
    };
    await run.waitFor((line) => payloadOf(line).type === "partial_text" && payloadOf(line).text === "A lo");
    await run.kill();
    // What the process printed as complete (what its trace got before it died).
    const printed = run.lines.filter((line: Line) =>
      ["text", "tool_call", "tool_call_output"].includes(String(payloadOf(line).type)),
    );

    const resumed = await env.agent.resumeSession(sessionId, { retry: RETRY_FAST });
    const traceFile = resumed.tracePath;
    const sizeBefore = statSync(traceFile).size;

    const [execution, ...others] = listed(resumed);
    expect(others).toEqual([]);
    expect(execution).toMatchObject({
      id: "root/1",
      agentRunId: "root",
      sessionId,
      state: "interrupted",
      resumable: true,
      prompt: "Do the thing.",
      requests: 2,
      toolCalls: 1,
      uncertainCalls: 0,
    });
    expect(execution?.endedAt).toBeUndefined();
    expect(resumed.executions({ state: "interrupted" })).toMatchObject({
      ok: true,
      executions: [{ id: "root/1" }],
    });
    expect(resumed.executions({ state: "completed" })).toEqual({ ok: true, executions: [] });
    expect(resumed.executions({ text: "RAN-ONCE" })).toMatchObject({
      ok: true,
      executions: [{ id: "root/1" }],
    });

    // Nothing recorded is lost: every complete message the process printed is in the saved context.
    const context = pageOf(resumed.execution("root/1", "context"));
    expect(context.items.map((item) => item.kind)).toEqual(["user", "assistant", "tool_call", "tool_output"]);
    for (const line of printed) {
      const p = payloadOf(line);
      const expected = String(p.type === "text" ? p.text : p.type === "tool_call" ? p.arguments : p.output);
      expect(
        context.items.some((item) => item.text.includes(expected)),
        expected,
      ).toBe(true);
    }
    const activities = pageOf(resumed.execution("root/1", "activities")).items.map((item) => item.text);
    expect(activities).toEqual([
      "request 1: completed",
      expect.stringMatching(/^exec_command \(call_first\): finished \(completed\)/),
      "request 2: no end recorded (cut off)",
    ]);
    const events = pageOf(resumed.execution("root/1", "events")).items.map((item) => item.kind);
    expect(events).toContain("tool_dispatched");
    expect(events).not.toContain("task_end");
    expect(resumed.execution("root/9")).toMatchObject({
      ok: false,
      error: expect.stringContaining('no execution "root/9"'),
    });
    // Reading resumed nothing: the trace is as the killed process left it.
    expect(statSync(traceFile).size).toBe(sizeBefore);
    expect(env.llm.requests).toHaveLength(2);

    const more = await collect(resumed.run("Continue, please.", { approve: allowAll }));
    expect(more.at(-1)?.payload).toMatchObject({ type: "task_end", status: "completed" });
    const output = more.find((m) => kind(m) === "tool_call_output")?.payload as {
      output: string;
      stop_reason: string;
    };
    expect(output.stop_reason).toBe("completed");
    expect(output.output).toContain("Continuing root/1 in this task (root/2)");
    expect(output.output).toContain("Do the thing.");
    expect(output.output).toContain("First a command.");
    expect(listed(resumed).map((e) => [e.id, e.state, e.resumable])).toEqual([
      ["root/1", "interrupted", false],
      ["root/2", "completed", false],
    ]);
    await resumed.dispose();
    // The command ran once, before the kill; nothing re-ran it.
    expect(readFileSync(join(env.workspaceDir, "runs.txt"), "utf8")).toBe("ran\n");
  });
});
