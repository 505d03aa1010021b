import {
  activityResolved,
  type OmniMessage,
  requestBegin,
  sessionMeta,
  taskEnd,
  toolCall,
  toolDispatched,
  userText,
} from "@penguin/protocol";
import type { AgentRecords } from "@penguin/trace";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { childRelauncher, type ExecutionSource } from "../../src/tools/executions/index.js";
import { type ChildSession, SubagentManager } from "../../src/tools/subagent/index.js";
import { extendedEnvironment, runCall, type TempDirs, workspace } from "../extended/support.js";

// resume_execution under the subagent runtime's caps and the tree's authority: a child past
// child_agents.max_depth is not relaunched, nor one more launched child than
// child_agents.max_running allows, and an agent resumes only its own work and its descendants'.

let dirs: TempDirs;
let manager: SubagentManager;
beforeEach(async () => {
  dirs = await workspace();
});
afterEach(async () => {
  await manager?.disposeAll();
  await dirs.cleanup();
});

/** A task cut off mid-request: what a killed process leaves. */
function interruptedTrace(sessionId: string, prompt: string): OmniMessage[] {
  return [
    sessionMeta({
      session_id: sessionId,
      provider: "fake",
      model_id: "fake-model",
      system_prompt: "You are a test.",
      workspace: dirs.workspaceDir,
      agent_id: "default",
    }),
    userText(prompt, { sender: "parent_agent" }),
    requestBegin(),
  ];
}

/** A reopened child whose continuation task runs until it is interrupted. */
function workingChild(sessionId: string, prompts: string[]): ChildSession {
  return {
    id: sessionId,
    run(input, options) {
      prompts.push(input);
      return (async function* () {
        await new Promise((resolve) => options.signal?.addEventListener("abort", resolve, { once: true }));
        yield taskEnd("aborted", "stopped");
      })();
    },
    dispose: async () => {},
  };
}

function tree(prompts: string[]) {
  const agents: AgentRecords[] = [
    { agentRunId: "root", sessionId: "s-root", depth: 0, records: [] },
    {
      agentRunId: "sub_1",
      sessionId: "s-1",
      depth: 1,
      parent: "root",
      records: interruptedTrace("s-1", "One."),
    },
    {
      agentRunId: "sub_2",
      sessionId: "s-2",
      depth: 1,
      parent: "root",
      records: interruptedTrace("s-2", "Two."),
    },
    {
      agentRunId: "sub_3",
      sessionId: "s-3",
      depth: 2,
      parent: "sub_1",
      records: interruptedTrace("s-3", "Three."),
    },
  ];
  manager = new SubagentManager({
    maxRunning: 1,
    launcher: {
      create: () => Promise.reject(new Error("nothing is launched here")),
      resume: async (sessionId) => workingChild(sessionId, prompts),
      readTrace: (sessionId) => agents.find((agent) => agent.sessionId === sessionId)?.records ?? [],
    },
  });
  manager.restore(
    agents
      .filter((agent) => agent.parent !== undefined)
      .map((agent) => ({
        subagentId: agent.agentRunId,
        sessionId: agent.sessionId,
        placement: { parent: agent.parent ?? "root", depth: agent.depth, launched: true },
      })),
  );
  const source = (self: string): ExecutionSource => ({
    self,
    read: () => ({ agents, options: { liveSince: "2999-01-01T00:00:00.000Z" } }),
    relaunch: childRelauncher(manager, 1),
  });
  return source;
}

describe("resume_execution under the caps of the subagent runtime", () => {
  it("relaunches a child within the caps, and refuses past max_depth and max_running", async () => {
    const prompts: string[] = [];
    const env = extendedEnvironment(dirs, { executions: tree(prompts)("root") });
    const deep = await runCall(env, "resume_execution", { execution_id: "sub_3/1" });
    expect(deep.complete).toMatchObject({ stop_reason: "failed" });
    expect(deep.complete.output).toContain("past the cap child_agents.max_depth (1)");

    const first = await runCall(env, "resume_execution", { execution_id: "sub_1/1" }, "call_2");
    expect(first.complete).toMatchObject({ stop_reason: "completed" });
    expect(manager.get("sub_1")?.status).toBe("running");
    expect(prompts).toEqual([expect.stringContaining("[resumed] Your previous task was cut off")]);
    expect(prompts[0]).toContain("One.");

    const second = await runCall(env, "resume_execution", { execution_id: "sub_2/1" }, "call_3");
    expect(second.complete).toMatchObject({ stop_reason: "failed" });
    expect(second.complete.output).toContain("the cap child_agents.max_running");
    expect(manager.get("sub_2")?.status).toBe("interrupted");
    expect(prompts).toHaveLength(1);
    await env.dispose();
  });

  it("holds max_running when two resumes run at once (calls of one round)", async () => {
    const prompts: string[] = [];
    const env = extendedEnvironment(dirs, { executions: tree(prompts)("root") });
    const calls = await Promise.all([
      runCall(env, "resume_execution", { execution_id: "sub_1/1" }, "call_1"),
      runCall(env, "resume_execution", { execution_id: "sub_2/1" }, "call_2"),
    ]);
    expect(calls.map((call) => call.complete.stop_reason).sort()).toEqual(["completed", "failed"]);
    expect(calls.find((call) => call.complete.stop_reason === "failed")?.complete.output).toContain(
      "the cap child_agents.max_running",
    );
    expect(manager.runningLaunched()).toBe(1);
    expect(prompts).toHaveLength(1);
    await env.dispose();
  });

  it("lets an agent resume only its own work and its descendants'", async () => {
    const prompts: string[] = [];
    const env = extendedEnvironment(dirs, { executions: tree(prompts)("sub_2") });
    const sibling = await runCall(env, "resume_execution", { execution_id: "sub_1/1" });
    expect(sibling.complete).toMatchObject({ stop_reason: "failed" });
    expect(sibling.complete.output).toContain("sub_2 cannot resume sub_1/1");
    const unknown = await runCall(env, "read_execution", { execution_id: "sub_9/1" }, "call_2");
    expect(unknown.complete.output).toContain('no execution "sub_9/1"');
    expect(prompts).toEqual([]);
    await env.dispose();
  });
});

describe("the execution tools when the traces cannot be read", () => {
  it("answer with a failed output that says why, and never throw", async () => {
    const broken: ExecutionSource = {
      self: "root",
      read: () => {
        throw new Error("session s-root has no trace");
      },
    };
    const env = extendedEnvironment(dirs, { executions: broken });
    const calls = [
      ["search_executions", {}],
      ["read_execution", { execution_id: "root/1" }],
      ["resume_execution", { execution_id: "root/1" }],
    ] as const;
    for (const [i, [name, args]] of calls.entries()) {
      const call = await runCall(env, name, args, `call_${i}`);
      expect(call.complete.stop_reason).toBe("failed");
      expect(call.complete.output).toBe(
        "the session's traces could not be read: session s-root has no trace",
      );
    }
    await env.dispose();
  });
});

describe("resume_execution on the agent's own earlier task", () => {
  it("names the calls it left open, with the decision taken on one since the crash", async () => {
    const records = [
      ...interruptedTrace("s-root", "Write both files."),
      toolCall("write_file", { file_path: "a.txt", content: "a" }, "c_a"),
      toolDispatched({ tool_call_id: "c_a", name: "write_file", read_only: false }),
      toolCall("write_file", { file_path: "b.txt", content: "b" }, "c_b"),
      toolDispatched({ tool_call_id: "c_b", name: "write_file", read_only: false }),
      // The process died; the task now running was started after the session was resumed.
      { ...userText("Go on."), timestamp: "2999-01-01T00:00:01.000Z" },
      activityResolved({ tool_call_id: "c_a", decision: "accept", evidence: "a.txt holds a", by: "user" }),
    ];
    const source: ExecutionSource = {
      self: "root",
      read: () => ({
        agents: [{ agentRunId: "root", sessionId: "s-root", depth: 0, records }],
        options: { liveSince: "2999-01-01T00:00:00.000Z" },
      }),
    };
    const env = extendedEnvironment(dirs, { executions: source });
    const own = await runCall(env, "resume_execution", { execution_id: "root/1" });
    expect(own.complete).toMatchObject({ stop_reason: "completed" });
    expect(own.complete.output).toContain("Continuing root/1 in this task (root/2)");
    expect(own.complete.output).toContain(
      "write_file (c_a) started and never reported; since decided accept by user: a.txt holds a",
    );
    expect(own.complete.output).toContain(
      "write_file (c_b) started and never reported: it may or may not have had its effect",
    );
    await env.dispose();
  });
});
