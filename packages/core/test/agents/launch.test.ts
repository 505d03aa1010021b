import { LAUNCH_AGENT_DEFINITION } from "@penguin/state";
import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { ProcessManager } from "../../src/processes/process-manager.js";
import { createLaunchAgentTool } from "../../src/tools/agents/index.js";
import { SubagentManager } from "../../src/tools/subagent/index.js";
import { collect, outputOf } from "../subagent/fixtures.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";
import {
  EXTENDED,
  exec,
  launch,
  launchNamed,
  MODEL,
  RETRY_FAST,
  setupTree,
  stop,
  systemOf,
  wait,
} from "./fixtures.js";

// launch_agent's refusals and what a child gets: the caps of child_agents (each refusal names
// its cap), an inline definition's allowed_tools, and named agents of the session's catalogue.

const start = cleanedUpAfterEach(setupTree);

const ALPHA = "ALPHA-MARKER";
const BRAVO = "BRAVO-MARKER";

/** The tool names a request offered the model. */
const toolsOf = (body: unknown) =>
  ((body as { tools?: { function: { name: string } }[] }).tools ?? [])
    .map((tool) => tool.function.name)
    .sort();

async function runRoot(env: Awaited<ReturnType<typeof setupTree>>) {
  const session = await env.agent.createSession({
    workspaceDir: env.workspaceDir,
    model: MODEL,
    retry: RETRY_FAST,
  });
  const yielded = await collect(session.run("Go.", { approve: allowAll }));
  return { session, yielded };
}

describe("launch_agent caps", () => {
  it("does not offer launch_agent at child_agents.max_depth, and the tool there names the cap", async () => {
    const env = await start({
      config: { ...EXTENDED, child_agents: { max_depth: 1 } },
      root: [
        { tool_calls: [launch("r_launch", "Report.", { instructions: `You are ${ALPHA}.` })] },
        { tool_calls: [wait("r_wait", 20_000)] },
        { text: "done" },
      ],
      routes: { [ALPHA]: [{ text: "alpha done" }] },
    });
    const { session } = await runRoot(env);
    const [rootRequest] = env.llm.requests;
    const [childRequest] = env.requestsOf(ALPHA);
    expect(toolsOf(rootRequest?.body)).toContain("launch_agent");
    // At depth 1 = max_depth: every tool of the agent but launch_agent (and the root-only subagent tools).
    const childTools = toolsOf(childRequest?.body);
    expect(childTools).not.toContain("launch_agent");
    expect(childTools).not.toContain("run_subagent");
    expect(childTools).toEqual(expect.arrayContaining(["send_message", "stop_agent", "wait_messages"]));
    // Nor does its system prompt list it.
    expect(systemOf(childRequest?.body)).not.toContain("launch_agent");
    await session.dispose();

    // The tool itself, at that depth (a seat at max_depth), refuses before starting anything.
    let created = 0;
    const manager = new SubagentManager({
      launcher: {
        create: () => {
          created++;
          return Promise.reject(new Error("not started"));
        },
        resume: () => Promise.reject(new Error("not used")),
        readTrace: () => [],
      },
    });
    const tool = createLaunchAgentTool(LAUNCH_AGENT_DEFINITION, {
      manager,
      self: "sub_1",
      depth: 1,
      maxDepth: 1,
      namedAgents: { get: () => undefined, list: () => [] },
      allowedTools: undefined,
      checkToolNames: () => ({ ok: true }),
    });
    const calls = tool.execute(
      { task: "Go deeper.", agent_definition: { instructions: "Deeper." } },
      {
        workspaceDir: env.workspaceDir,
        toolCallId: "c_deep",
        sessionId: "s",
        scratchpadDir: env.workspaceDir,
        processes: new ProcessManager(),
        modelHasVision: false,
      },
    );
    let text = "";
    let step = await calls.next();
    for (; !step.done; step = await calls.next())
      text += (step.value.payload as { output?: string }).output ?? "";
    expect(step.value).toEqual({ stopReason: "failed" });
    expect(text).toBe(
      "cannot launch an agent: you are at depth 1 of the agent tree, and its children would pass the cap child_agents.max_depth (1, a setting of the agent's system_config.yaml). Do the work yourself, or report back to the agent that launched you.",
    );
    expect(created).toBe(0);
  });

  it("refuses a launch past child_agents.max_running, naming the cap and the setting", async () => {
    const env = await start({
      config: { ...EXTENDED, child_agents: { max_running: 1 } },
      root: [
        { tool_calls: [launch("r_first", "Work long.", { instructions: `You are ${ALPHA}.` })] },
        { tool_calls: [launch("r_second", "Work too.", { instructions: `You are ${BRAVO}.` })] },
        { tool_calls: [stop("r_stop", "sub_1")] },
        { tool_calls: [launch("r_third", "Work now.", { instructions: `You are ${BRAVO}.` })] },
        { text: "done" },
      ],
      routes: {
        [ALPHA]: [{ tool_calls: [wait("a_wait", 600_000)] }],
        [BRAVO]: [{ text: "bravo done" }],
      },
    });
    const { session, yielded } = await runRoot(env);
    const refused = outputOf(yielded, "r_second");
    expect(refused.stop_reason).toBe("failed");
    expect(refused.output).toBe(
      "cannot launch another agent: 1 launched agents are running at once in this session (sub_1), the cap child_agents.max_running. Wait for one to finish (its message arrives through wait_messages) or stop one with stop_agent, then retry; the cap is a setting of the agent's system_config.yaml.",
    );
    // Once the running one is stopped there is room again; the refused launch took no id.
    expect(outputOf(yielded, "r_third").output).toContain("agent_run_id: sub_2");
    await session.dispose();
  });
});

describe("launch_agent and the kept child sessions", () => {
  it("refuses a launch when child_agents.max_sessions are all running, naming the cap", async () => {
    const env = await start({
      config: { ...EXTENDED, child_agents: { max_sessions: 1 } },
      root: [
        { tool_calls: [launch("r_first", "Work long.", { instructions: `You are ${ALPHA}.` })] },
        { tool_calls: [launch("r_second", "Work too.", { instructions: `You are ${BRAVO}.` })] },
        { tool_calls: [stop("r_stop", "sub_1")] },
        { text: "done" },
      ],
      routes: { [ALPHA]: [{ tool_calls: [wait("a_wait", 600_000)] }] },
    });
    const { session, yielded } = await runRoot(env);
    const refused = outputOf(yielded, "r_second");
    expect(refused.stop_reason).toBe("failed");
    expect(refused.output).toBe(
      "cannot launch another agent: all 1 child sessions of this session are running or in use (sub_1), the cap child_agents.max_sessions, and running ones are never evicted. Wait for one to finish (its report arrives through wait_messages) or stop one with stop_agent, then retry.",
    );
    await session.dispose();
  });
});

describe("launch_agent definitions", () => {
  it("limits an inline agent's tools to its allowed_tools plus the tools every agent has", async () => {
    const env = await start({
      root: [
        {
          tool_calls: [
            launch("r_launch", "Read only.", {
              instructions: `You are ${ALPHA}.`,
              allowed_tools: ["read_file"],
            }),
            launch("r_typo", "Nothing.", { instructions: `You are ${BRAVO}.`, allowed_tools: ["read_fiel"] }),
          ],
        },
        { tool_calls: [wait("r_wait", 20_000)] },
        { text: "done" },
      ],
      routes: { [ALPHA]: [{ text: "alpha done" }] },
    });
    const { session, yielded } = await runRoot(env);
    const [childRequest] = env.requestsOf(ALPHA);
    expect(toolsOf(childRequest?.body)).toEqual([
      "ask",
      "read_file",
      "send_message",
      "stop_agent",
      "wait_messages",
    ]);
    // Its instructions follow the agent's system prompt.
    expect(systemOf(childRequest?.body)).toMatch(
      /# Your instructions as a child agent\n\nYou are ALPHA-MARKER\.\n$/,
    );
    const typo = outputOf(yielded, "r_typo");
    expect(typo.stop_reason).toBe("failed");
    expect(typo.output).toContain(
      'allowed_tools names "read_fiel", which no tool has. The tools are: exec_command',
    );
    expect(typo.output).toContain("nothing was launched");
    expect(session.subagents.map((child) => child.subagentId)).toEqual(["sub_1"]);
    await session.dispose();
  });

  it("runs a named agent with its instructions and allowed-tools, and refuses an unknown name with the known ones", async () => {
    const env = await start({
      namedAgents: {
        reviewer: `---\nname: reviewer\ndescription: Reviews changes.\nallowed-tools: read_file, exec_command\n---\nYou are ${ALPHA}, a careful reviewer.\n`,
      },
      root: [
        {
          tool_calls: [
            launchNamed("r_named", "Review it.", "reviewer"),
            launchNamed("r_nobody", "Hi.", "nobody"),
          ],
        },
        { tool_calls: [wait("r_wait", 20_000)] },
        { text: "done" },
      ],
      routes: { [ALPHA]: [{ tool_calls: [exec("a_exec", "echo reviewed")] }, { text: "looks good" }] },
    });
    const { session, yielded } = await runRoot(env);
    const unknown = outputOf(yielded, "r_nobody");
    expect(unknown.stop_reason).toBe("failed");
    expect(unknown.output).toBe(
      'no named agent "nobody". The named agents of this session are: reviewer. Use one of them, or describe the agent inline with agent_definition. Nothing was launched.',
    );
    const [childRequest] = env.requestsOf(ALPHA);
    expect(toolsOf(childRequest?.body)).toEqual([
      "ask",
      "exec_command",
      "read_file",
      "send_message",
      "stop_agent",
      "wait_messages",
    ]);
    expect(session.subagents).toEqual([
      expect.objectContaining({ subagentId: "sub_1", agent: "reviewer", depth: 1 }),
    ]);
    expect(outputOf(yielded, "r_wait").output).toContain(
      "[agent sub_1 finished: completed]\nFinal answer:\nlooks good",
    );
    await session.dispose();
  });
});
