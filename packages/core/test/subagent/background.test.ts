import type { OmniMessage, ToolCallPayload } from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
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
  traceRecords,
  waitFor,
} from "./fixtures.js";

type Env = Awaited<ReturnType<typeof setup>>;
const start = cleanedUpAfterEach(setup);

const isOutputOf = (m: OmniMessage, id: string) =>
  m.origin === undefined &&
  kind(m) === "tool_call_output" &&
  (m.payload as { tool_call_id: string }).tool_call_id === id;

const newSession = (env: Env) =>
  env.agent.createSession({ workspaceDir: env.workspaceDir, model: MODEL, retry: RETRY_FAST });

describe("subagents in the background (real child sessions on a second fake-llm server)", () => {
  it("moves to the background after yield_time_ms with a subagent_id, and input_subagent polls until the answer", async () => {
    const env = await start(
      [
        {
          tool_calls: [
            runSubagent("call_run", { prompt: "Wait for go.", yield_time_ms: 200, ...CHILD_MODEL }),
          ],
        },
        { tool_calls: [inputSubagent("call_poll1", { subagent_id: "sub_1", yield_time_ms: 200 })] },
        { tool_calls: [inputSubagent("call_poll2", { subagent_id: "sub_1", yield_time_ms: 20_000 })] },
        { text: "done" },
      ],
      {
        childScript: [
          { text: "Starting the wait.", tool_calls: [exec("child_wait", waitFor())] },
          { text: "The wait is over." },
        ],
      },
    );
    const session = await newSession(env);
    const yielded = await collect(session.run("Delegate.", { approve: allowAll }), (m) => {
      if (isOutputOf(m, "call_poll1")) env.release();
    });
    const childId = session.subagents[0].sessionId;
    const run = outputOf(yielded, "call_run");
    expect(run.stop_reason).toBe("completed");
    expect(run.output).toContain(
      `[subagent sub_1 is still running in the background; session_id=${childId}; use input_subagent with subagent_id=sub_1 to poll it]`,
    );
    const poll1 = outputOf(yielded, "call_poll1");
    expect(poll1.output).toContain("[subagent sub_1 is still running in the background");
    // The text it said while running comes back once, from whichever call read it first.
    expect(`${run.output}${poll1.output}`.split("Starting the wait.")).toHaveLength(2);
    const poll2 = outputOf(yielded, "call_poll2");
    expect(poll2.stop_reason).toBe("completed");
    expect(poll2.output.startsWith("The wait is over.")).toBe(true);
    expect(poll2.output).toContain(`[subagent sub_1 finished (completed); session_id=${childId};`);
    // The child's command really ran to the end.
    const childOutput = sessionRecords(env.location, childId).find((m) => kind(m) === "tool_call_output");
    expect(childOutput?.payload).toMatchObject({ output: expect.stringContaining("released-go") });
    await session.dispose();
  });

  it("accepts a follow-up prompt only while the child is idle", async () => {
    const env = await start(
      [
        {
          tool_calls: [
            runSubagent("call_run", { prompt: "First task.", yield_time_ms: 200, ...CHILD_MODEL }),
          ],
        },
        {
          tool_calls: [
            inputSubagent("call_early", { subagent_id: "sub_1", prompt: "Too early." }),
            inputSubagent("call_unknown", { subagent_id: "sub_42" }),
          ],
        },
        { tool_calls: [inputSubagent("call_wait", { subagent_id: "sub_1", yield_time_ms: 20_000 })] },
        { tool_calls: [inputSubagent("call_follow", { subagent_id: "sub_1", prompt: "Second task." })] },
        { text: "done" },
      ],
      {
        childScript: [
          { tool_calls: [exec("child_wait", waitFor())] },
          { text: "First answer." },
          { text: "Second answer." },
        ],
      },
    );
    const session = await newSession(env);
    const yielded = await collect(session.run("Delegate twice.", { approve: allowAll }), (m) => {
      if (isOutputOf(m, "call_early")) env.release();
    });
    const early = outputOf(yielded, "call_early");
    expect(early.stop_reason).toBe("failed");
    expect(early.output).toContain("subagent sub_1 is still running its task");
    expect(early.output).toContain("poll it with input_subagent without a prompt");
    const unknown = outputOf(yielded, "call_unknown");
    expect(unknown.stop_reason).toBe("failed");
    expect(unknown.output).toContain(
      'unknown subagent_id "sub_42" (use the id run_subagent returned). Known subagents: sub_1.',
    );
    expect(outputOf(yielded, "call_wait").output.startsWith("First answer.")).toBe(true);
    const follow = outputOf(yielded, "call_follow");
    expect(follow.stop_reason).toBe("completed");
    expect(follow.output.startsWith("Second answer.")).toBe(true);

    // The refused prompt never reached the child; the follow-up did, from the parent agent.
    const childId = session.subagents[0].sessionId;
    const prompts = sessionRecords(env.location, childId)
      .filter((m) => kind(m) === "text" && (m.payload as { role: string }).role === "user")
      .map((m) => m.payload as { text: string; sender: string });
    expect(prompts).toEqual([
      expect.objectContaining({ text: "First task.", sender: "parent_agent" }),
      expect.objectContaining({ text: "Second task.", sender: "parent_agent" }),
    ]);
    const third = env.llm2.requests[2].body as { messages: { role: string; content?: unknown }[] };
    expect(third.messages.at(-1)).toMatchObject({ role: "user", content: "Second task." });
    await session.dispose();
  });

  it("says which call the child waits on while a human decides, and streams the child's decision into the parent", async () => {
    const env = await start(
      [
        {
          tool_calls: [
            runSubagent("call_run", { prompt: "Run echo.", yield_time_ms: 1_500, ...CHILD_MODEL }),
          ],
        },
        { tool_calls: [inputSubagent("call_poll1", { subagent_id: "sub_1", yield_time_ms: 300 })] },
        { tool_calls: [inputSubagent("call_poll2", { subagent_id: "sub_1", yield_time_ms: 20_000 })] },
        { text: "done" },
      ],
      { childScript: [{ tool_calls: [exec("child_exec", "echo approved-run")] }, { text: "It ran." }] },
    );
    let decide!: () => void;
    const human = new Promise<void>((resolve) => {
      decide = resolve;
    });
    const asked: string[] = [];
    // The parent's callback: the subagent tools pass at once, the child's command waits for "a human".
    const approve = async (call: OmniMessage<ToolCallPayload>) => {
      asked.push(call.payload.tool_call_id);
      if (call.payload.name === "exec_command") await human;
      return "allow" as const;
    };
    const session = await newSession(env);
    const yielded = await collect(session.run("Delegate.", { approve }), (m) => {
      if (isOutputOf(m, "call_poll1")) decide();
    });
    // The child's call went to the parent's callback (approval inheritance).
    expect(asked).toEqual(expect.arrayContaining(["call_run", "child_exec", "call_poll1", "call_poll2"]));
    const poll1 = outputOf(yielded, "call_poll1");
    expect(poll1.output).toContain(
      "[subagent sub_1 is still running in the background; waiting for an approval decision on exec_command (tool_call_id=child_exec);",
    );
    const poll2 = outputOf(yielded, "call_poll2");
    expect(poll2.output.startsWith("It ran.")).toBe(true);

    const childId = session.subagents[0].sessionId;
    const decision = yielded.find((m) => m.origin !== undefined && kind(m) === "approval_decision");
    expect(decision?.origin).toEqual([childId]);
    expect(decision?.payload).toMatchObject({
      tool_call_id: "child_exec",
      decision: "allow",
      source: { kind: "callback" },
    });
    // Recorded in the child's trace, not in the parent's.
    expect(
      sessionRecords(env.location, childId).some(
        (m) =>
          kind(m) === "approval_decision" &&
          (m.payload as { tool_call_id: string }).tool_call_id === "child_exec",
      ),
    ).toBe(true);
    expect(
      traceRecords(session.tracePath).some(
        (m) =>
          kind(m) === "approval_decision" &&
          (m.payload as { tool_call_id: string }).tool_call_id === "child_exec",
      ),
    ).toBe(false);
    await session.dispose();
  });

  it("bounds a background child's unread text like a command session's, with the same dropped-text marker", async () => {
    const big = `${"x".repeat(1_100_000)}END`;
    const env = await start(
      [
        {
          tool_calls: [
            runSubagent("call_run", { prompt: "Talk a lot.", yield_time_ms: 100, ...CHILD_MODEL }),
          ],
        },
        { text: "It is busy." },
        { tool_calls: [inputSubagent("call_poll", { subagent_id: "sub_1", yield_time_ms: 0 })] },
        { text: "done" },
      ],
      { childScript: [{ text: big, chunk_size: 200_000, tool_calls: [exec("child_exec", "echo hi")] }] },
    );
    let childAsked!: () => void;
    const asked = new Promise<void>((resolve) => {
      childAsked = resolve;
    });
    // The child's command waits for a decision that never comes, so the child stays running.
    const approve = (call: OmniMessage<ToolCallPayload>) => {
      if (call.payload.name !== "exec_command") return Promise.resolve("allow" as const);
      childAsked();
      return new Promise<"allow">(() => {});
    };
    const session = await newSession(env);
    const first = await collect(session.run("Delegate.", { approve }));
    await asked;
    const second = await collect(session.run("Check on it.", { approve }));
    const combined = `${outputOf(first, "call_run").output}${outputOf(second, "call_poll").output}`;
    const marker = /\[\.\.\., (\d+) chars of earlier output dropped \.\.\.\]\n/.exec(combined);
    expect(marker).not.toBeNull();
    // 1 MiB kept: the text and its line break, less the cap, was dropped.
    expect(Number(marker?.[1])).toBe(big.length + 1 - 1024 * 1024);
    // What reaches the model is the Environment's head window of that, not the megabyte.
    expect(combined.length).toBeLessThan(100_000);
    await session.dispose();
  });
});
