import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { OmniMessage } from "@penguin/protocol";
import { subagentTree } from "@penguin/trace";
import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { createAgent } from "../../src/sdk/agent.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";
import {
  CHILD_MODEL,
  collect,
  exec,
  inputSubagent,
  kind,
  MODEL,
  outputOf,
  RETRY_FAST,
  runSubagent,
  sessionRecords,
  setup,
  waitFor,
} from "./fixtures.js";

type Env = Awaited<ReturnType<typeof setup>>;
const start = cleanedUpAfterEach(setup);

const newSession = (env: Env) =>
  env.agent.createSession({ workspaceDir: env.workspaceDir, model: MODEL, retry: RETRY_FAST });

const isOutputOf = (m: OmniMessage, id: string) =>
  m.origin === undefined &&
  kind(m) === "tool_call_output" &&
  (m.payload as { tool_call_id: string }).tool_call_id === id;

async function until(check: () => boolean, what: string) {
  // Generous: a busy machine may take long to start the child's login shell; this is no speed test.
  for (let i = 0; i < 1_600; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/** Whether a process runs (a zombie, dead but not yet reaped by its parent, does not). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (!existsSync("/proc")) return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

describe("subagent sessions: cap, interrupt, disposal, resume", { timeout: 90_000 }, () => {
  it("rejects a 9th subagent while 8 run, and accepts one once a subagent has finished (evicting it)", async () => {
    const eight = Array.from({ length: 8 }, (_, i) =>
      runSubagent(`call_r${i + 1}`, { prompt: `Task ${i + 1}.`, yield_time_ms: 100, ...CHILD_MODEL }),
    );
    const env = await start(
      [
        { tool_calls: eight },
        { tool_calls: [runSubagent("call_r9", { prompt: "Task 9.", yield_time_ms: 100, ...CHILD_MODEL })] },
        { tool_calls: [inputSubagent("call_wait", { subagent_id: "sub_1", yield_time_ms: 20_000 })] },
        {
          tool_calls: [
            runSubagent("call_r10", { prompt: "Task 10.", yield_time_ms: 20_000, ...CHILD_MODEL }),
          ],
        },
        { text: "done" },
      ],
      {
        childScript: [
          ...Array.from({ length: 8 }, () => ({ tool_calls: [exec("child_wait", waitFor())] })),
          ...Array.from({ length: 9 }, () => ({ text: "Child done." })),
        ],
      },
    );
    const session = await newSession(env);
    const yielded = await collect(session.run("Delegate a lot.", { approve: allowAll }), (m) => {
      // Every child is blocked on its command until the 9th spawn was refused.
      if (isOutputOf(m, "call_r9"))
        void env.llm2
          .waitForRequests(8, { timeoutMs: 60_000 })
          .catch(() => {})
          .then(() => env.release());
    });
    for (let i = 1; i <= 8; i++)
      expect(outputOf(yielded, `call_r${i}`).output).toContain(`sub_${i} is still running`);
    const ninth = outputOf(yielded, "call_r9");
    expect(ninth.stop_reason).toBe("failed");
    expect(ninth.output).toContain(
      "cannot start another subagent: all 8 subagent sessions are running or in use",
    );
    expect(ninth.output).toContain("running subagents are never evicted");
    expect(outputOf(yielded, "call_wait").output.startsWith("Child done.")).toBe(true);
    // The refused spawn took no id; the next one evicted a finished subagent.
    const tenth = outputOf(yielded, "call_r10");
    expect(tenth.stop_reason).toBe("completed");
    expect(tenth.output).toContain("[subagent sub_9 finished (completed)");
    const kept = session.subagents.map((s) => s.subagentId);
    expect(kept).toHaveLength(8);
    expect(kept).toContain("sub_9");
    const evicted = Array.from({ length: 8 }, (_, i) => `sub_${i + 1}`).filter((id) => !kept.includes(id));
    expect(evicted).toHaveLength(1);
    // No running child was evicted: the evicted child's trace ends with its completed task.
    const pointers = yielded
      .filter((m) => kind(m) === "subagent")
      .map((m) => m.payload as { subagent_id: string; session_id: string });
    expect(pointers).toHaveLength(9);
    const gone = pointers.find((p) => p.subagent_id === evicted[0]);
    const goneRecords = sessionRecords(env.location, gone?.session_id ?? "");
    expect(goneRecords.filter((m) => kind(m) === "task_end").at(-1)?.payload).toMatchObject({
      status: "completed",
    });
    await session.dispose();
  });

  it("child_agents.max_sessions sets the cap of kept child sessions", async () => {
    const three = Array.from({ length: 3 }, (_, i) =>
      runSubagent(`call_r${i + 1}`, { prompt: `Task ${i + 1}.`, yield_time_ms: 100, ...CHILD_MODEL }),
    );
    const env = await start([{ tool_calls: three }, { text: "done" }], {
      config: { child_agents: { max_sessions: 2 } },
      childScript: [
        ...Array.from({ length: 2 }, () => ({ tool_calls: [exec("child_wait", waitFor())] })),
        ...Array.from({ length: 2 }, () => ({ text: "Child done." })),
      ],
    });
    const session = await newSession(env);
    const yielded = await collect(session.run("Delegate.", { approve: allowAll }), (m) => {
      if (isOutputOf(m, "call_r3")) env.release();
    });
    expect(outputOf(yielded, "call_r3").output).toContain(
      "cannot start another subagent: all 2 subagent sessions are running or in use",
    );
    // Kept in the order their sessions finished starting: either may come first.
    expect(session.subagents.map((s) => s.subagentId).sort()).toEqual(["sub_1", "sub_2"]);
    await session.dispose();
  });

  it("interrupts a foreground child when the parent's task is aborted", async () => {
    const env = await start(
      [{ tool_calls: [runSubagent("call_run", { prompt: "Wait forever.", ...CHILD_MODEL })] }],
      { childScript: [{ tool_calls: [exec("child_wait", waitFor("never"))] }] },
    );
    const session = await newSession(env);
    const controller = new AbortController();
    const yielded = await collect(
      session.run("Delegate.", { approve: allowAll, signal: controller.signal }),
      (m) => {
        // Abort once the child's command is running (its first output delta has streamed in).
        if (m.origin !== undefined && kind(m) === "partial_tool_call_output") controller.abort();
      },
    );
    const out = outputOf(yielded, "call_run");
    expect(out.stop_reason).toBe("aborted");
    expect(out.output).toContain("[interrupted: subagent sub_1 was stopped;");
    const [child] = session.subagents;
    expect(child).toMatchObject({ subagentId: "sub_1", status: "idle", lastTask: { status: "aborted" } });
    const records = sessionRecords(env.location, child.sessionId);
    expect(records.map(kind)).toContain("abort");
    expect(records.at(-1)?.payload).toMatchObject({ type: "task_end", status: "aborted" });
    expect(yielded.at(-1)?.payload).toMatchObject({ type: "task_end", status: "aborted" });
    await session.dispose();
  });

  it("dispose ends every child session, its task and its processes", async () => {
    const env = await start(
      [
        {
          tool_calls: [
            runSubagent("call_run", { prompt: "Start a sleeper.", yield_time_ms: 100, ...CHILD_MODEL }),
          ],
        },
        { text: "It runs." },
      ],
      { childScript: [{ tool_calls: [exec("child_sleep", "echo $$ > sleeper.pid; exec sleep 60")] }] },
    );
    const session = await newSession(env);
    await collect(session.run("Delegate.", { approve: allowAll }));
    const pidFile = join(env.workspaceDir, "sleeper.pid");
    await until(
      () => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "",
      "the child's command",
    );
    const pid = Number(readFileSync(pidFile, "utf8").trim());
    expect(isAlive(pid)).toBe(true);
    const [child] = session.subagents;
    expect(child.status).toBe("running");

    await session.dispose();
    expect(isAlive(pid)).toBe(false);
    expect(session.subagents).toEqual([]);
    const records = sessionRecords(env.location, child.sessionId);
    expect(records.at(-1)?.payload).toMatchObject({ type: "task_end", status: "aborted" });
  });

  it("resume: finished children are found through the pointers, a child that was running is reported interrupted, and a follow-up reopens a finished one", async () => {
    const env = await start(
      [
        { tool_calls: [runSubagent("call_a", { prompt: "Quick one.", ...CHILD_MODEL })] },
        { tool_calls: [runSubagent("call_b", { prompt: "Slow one.", yield_time_ms: 100, ...CHILD_MODEL })] },
        { text: "Both started." },
        // After the resume:
        { tool_calls: [inputSubagent("call_c", { subagent_id: "sub_2" })] },
        { tool_calls: [inputSubagent("call_d", { subagent_id: "sub_1" })] },
        { tool_calls: [inputSubagent("call_e", { subagent_id: "sub_1", prompt: "And one more thing." })] },
        { tool_calls: [runSubagent("call_f", { prompt: "A new one.", ...CHILD_MODEL })] },
        { text: "All done." },
      ],
      {
        childScript: [
          { text: "Quick answer." },
          { tool_calls: [exec("child_wait", waitFor("never"))] },
          { text: "More answer." },
          { text: "New answer." },
        ],
      },
    );
    const first = await newSession(env);
    await collect(first.run("Start two.", { approve: allowAll }));
    const [quick, slow] = first.subagents;
    expect(quick.status).toBe("idle");
    expect(slow.status).toBe("running");

    // A new process (a new agent on the same data root) resumes the parent from its trace while
    // the old one's slow child never recorded an end: as if the old process had died.
    const agent = await createAgent({ dataRoot: env.dataRoot, logger: { warn: () => {} } });
    const resumed = await agent.resumeSession(first.id, { retry: RETRY_FAST });
    expect(resumed.subagents).toEqual([
      {
        subagentId: "sub_1",
        sessionId: quick.sessionId,
        status: "idle",
        lastTask: { status: "completed" },
        pendingApprovals: [],
        parent: "root",
        depth: 1,
      },
      {
        subagentId: "sub_2",
        sessionId: slow.sessionId,
        status: "interrupted",
        pendingApprovals: [],
        parent: "root",
        depth: 1,
      },
    ]);
    const yielded = await collect(resumed.run("Check on them.", { approve: allowAll }));

    const interrupted = outputOf(yielded, "call_c");
    expect(interrupted.output).toContain(
      "[subagent sub_2 was interrupted: it was running when the previous process ended and was not resumed;",
    );
    const finished = outputOf(yielded, "call_d");
    expect(finished.output.startsWith("Quick answer.")).toBe(true);
    expect(finished.output).toContain(`[subagent sub_1 finished (completed); session_id=${quick.sessionId};`);
    const followUp = outputOf(yielded, "call_e");
    expect(followUp.stop_reason).toBe("completed");
    expect(followUp.output.startsWith("More answer.")).toBe(true);
    // Numbering goes on after the recorded ids.
    expect(outputOf(yielded, "call_f").output).toContain("[subagent sub_3 finished (completed)");

    // The reopened child went on in its own trace, with its earlier context.
    const quickRecords = sessionRecords(env.location, quick.sessionId);
    expect(quickRecords.filter((m) => kind(m) === "task_end")).toHaveLength(2);
    const reopenedRequest = env.llm2.requests[2].body as { messages: { role: string; content?: unknown }[] };
    expect(reopenedRequest.messages.map((m) => m.content)).toEqual(
      expect.arrayContaining(["Quick one.", "Quick answer.", "And one more thing."]),
    );

    const tree = subagentTree(env.location, first.id);
    expect(tree.children.map((c) => [c.subagentId, c.sessionId, c.meta?.source])).toEqual([
      ["sub_1", quick.sessionId, "subagent"],
      ["sub_2", slow.sessionId, "subagent"],
      ["sub_3", resumed.subagents[2].sessionId, "subagent"],
    ]);
    await resumed.dispose();
    await first.dispose();
  });
});
