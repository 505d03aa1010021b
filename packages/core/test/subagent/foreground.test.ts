import { isPayload, type OmniMessage } from "@penguin/protocol";
import { createAgent as createAgentConfig, DEFAULT_TOOL_DEFINITIONS } from "@penguin/state";
import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import type { ToolExecutionContext } from "../../src/environment/types.js";
import { createAgent } from "../../src/sdk/agent.js";
import { createRunSubagentTool, DEPTH_CAP_MESSAGE } from "../../src/tools/subagent/index.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";
import {
  CHILD_MODEL,
  CHILD_MODEL_ID,
  CHILD_PROVIDER,
  collect,
  exec,
  kind,
  MODEL,
  outputOf,
  RETRY_FAST,
  runSubagent,
  sessionRecords,
  setup,
  traceRecords,
} from "./fixtures.js";

type Env = Awaited<ReturnType<typeof setup>>;
const start = cleanedUpAfterEach(setup);

interface ChatBody {
  model: string;
  messages: { role: string; content?: unknown }[];
  tools?: { function: { name: string } }[];
  reasoning_effort?: string;
}
const bodyOf = (env: Env, n: number, server: "llm" | "llm2" = "llm") =>
  env[server].requests.filter((r) => r.protocol === "openai-chat")[n].body as ChatBody;
const toolNames = (body: ChatBody) => (body.tools ?? []).map((t) => t.function.name);
const pointerOf = (records: OmniMessage[]) =>
  records.find((m) => kind(m) === "subagent")?.payload as
    | { session_id: string; subagent_id: string; tool_call_id: string }
    | undefined;

/** The parent asks for a subagent, the child answers (same fake-llm server, in order), the parent ends. */
async function foregroundRun(env: Env) {
  const session = await env.agent.createSession({
    workspaceDir: env.workspaceDir,
    model: MODEL,
    thinkingLevel: "high",
    retry: RETRY_FAST,
  });
  const yielded = await collect(session.run("Delegate the sum.", { approve: allowAll }));
  return { session, yielded };
}

const FOREGROUND_SCRIPT = [
  { tool_calls: [runSubagent("call_run", { prompt: "Compute 40 + 2 and reply with the number." })] },
  { text: "The answer is 42." },
  { text: "The subagent says 42." },
];

describe("run_subagent in the foreground (real child session against fake-llm)", () => {
  it("agent_id runs the child as another agent of the data root: its system prompt and tools, the parent's model", async () => {
    const env = await start([
      { tool_calls: [runSubagent("call_run", { prompt: "Review it.", agent_id: "reviewer" })] },
      { text: "Reviewed." },
      { text: "The review is in." },
      { tool_calls: [runSubagent("call_unknown", { prompt: "Review it.", agent_id: "nobody" })] },
      { text: "Done." },
    ]);
    const created = await createAgentConfig(env.dataRoot, "reviewer", {
      system_prompt: "You are the reviewer agent; you only read files.",
      tools: { builtin: DEFAULT_TOOL_DEFINITIONS.filter((d) => d.name === "read_file") },
    });
    expect(created.ok).toBe(true);
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    const first = await collect(session.run("Get a review.", { approve: allowAll }));
    expect(outputOf(first, "call_run").output.startsWith("Reviewed.")).toBe(true);
    const childId = pointerOf(traceRecords(session.tracePath))?.session_id as string;
    expect(sessionRecords(env.location, childId)[0].payload).toMatchObject({
      agent_id: "reviewer",
      provider: "fake",
      model_id: "fake-model",
    });
    const childBody = bodyOf(env, 1);
    expect(JSON.stringify(childBody.messages[0])).toContain("You are the reviewer agent");
    expect(toolNames(childBody)).toEqual(["read_file"]);

    // An agent that does not exist: the call fails with a message the model can act on.
    const second = await collect(session.run("Again, with nobody.", { approve: allowAll }));
    const unknown = outputOf(second, "call_unknown");
    expect(unknown.stop_reason).toBe("failed");
    expect(unknown.output).toContain('the subagent could not be started: cannot load agent "nobody"');
    await session.dispose();
  });

  it("a child follows the thinking level the parent's task runs at, even when the run overrides the session's", async () => {
    const env = await start(FOREGROUND_SCRIPT);
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      thinkingLevel: "low",
      retry: RETRY_FAST,
    });
    await collect(session.run("Delegate the sum.", { approve: allowAll, thinkingLevel: "high" }));
    const parentBody = bodyOf(env, 0);
    const childBody = bodyOf(env, 1);
    expect(parentBody.reasoning_effort).toBe("high");
    expect(childBody.reasoning_effort).toBe("high");
    await session.dispose();
  });

  it("returns the child's final answer with its status and session id, linked by a pointer in the parent's trace", async () => {
    const env = await start(FOREGROUND_SCRIPT);
    const { session, yielded } = await foregroundRun(env);
    const parentRecords = traceRecords(session.tracePath);
    const pointer = pointerOf(parentRecords);
    expect(pointer).toMatchObject({ subagent_id: "sub_1", tool_call_id: "call_run" });
    const childId = pointer?.session_id as string;
    expect(childId).not.toBe(session.id);

    const out = outputOf(yielded, "call_run");
    expect(out.stop_reason).toBe("completed");
    expect(out.output.startsWith("The answer is 42.")).toBe(true);
    expect(out.output).toContain(`[subagent sub_1 finished (completed); session_id=${childId};`);

    // The child's own trace: a subagent session of this parent, in the same workspace, same model.
    const child = sessionRecords(env.location, childId);
    expect(child[0].payload).toMatchObject({
      session_id: childId,
      source: "subagent",
      parent_session_id: session.id,
      workspace: env.workspaceDir,
      provider: "fake",
      model_id: "fake-model",
    });
    const prompt = child.find((m) => isPayload(m, "text") && m.payload.role === "user");
    expect(prompt?.payload).toMatchObject({
      text: "Compute 40 + 2 and reply with the number.",
      sender: "parent_agent",
    });
    expect(child.map(kind)).toContain("task_end");

    // The child's request went to the parent's model with the parent's thinking level.
    const parentBody = bodyOf(env, 0);
    const childBody = bodyOf(env, 1);
    expect(childBody.model).toBe("fake-model");
    expect(childBody.reasoning_effort).toBeDefined();
    expect(childBody.reasoning_effort).toBe(parentBody.reasoning_effort);
    expect(childBody.messages.at(-1)).toMatchObject({
      role: "user",
      content: "Compute 40 + 2 and reply with the number.",
    });
    // The parent's model read the answer.
    const toolMessage = bodyOf(env, 2).messages.find((m) => m.role === "tool");
    expect(String(toolMessage?.content)).toContain("The answer is 42.");

    expect(session.subagents).toEqual([
      {
        subagentId: "sub_1",
        sessionId: childId,
        status: "idle",
        lastTask: { status: "completed" },
        pendingApprovals: [],
        // A run_subagent child sits one level below the root in the session's agent tree.
        parent: "root",
        depth: 1,
      },
    ]);
    await session.dispose();
  });

  it("streams the child's messages into the parent tagged with origin, and keeps them out of the parent's trace", async () => {
    const env = await start(FOREGROUND_SCRIPT);
    const { session, yielded } = await foregroundRun(env);
    const childId = pointerOf(yielded)?.session_id as string;
    const fromChild = yielded.filter((m) => m.origin !== undefined);
    expect(fromChild.length).toBeGreaterThan(0);
    for (const m of fromChild) expect(m.origin).toEqual([childId]);
    const kinds = fromChild.map(kind);
    // Header, prompt, live partials and completes, events: the whole child task.
    for (const k of [
      "session_meta",
      "tool_list_ready",
      "text",
      "partial_text",
      "request_begin",
      "token_usage",
      "task_end",
    ]) {
      expect(kinds).toContain(k);
    }
    const answer = fromChild.find((m) => isPayload(m, "text") && m.payload.role === "assistant");
    expect(answer?.payload).toMatchObject({ text: "The answer is 42." });
    // The pointer comes before anything of the child.
    const pointerAt = yielded.findIndex((m) => kind(m) === "subagent");
    expect(pointerAt).toBeLessThan(yielded.indexOf(fromChild[0]));
    // The parent's trace has the pointer but no origin-tagged record.
    const parentRecords = traceRecords(session.tracePath);
    expect(parentRecords.filter((m) => m.origin !== undefined)).toEqual([]);
    expect(parentRecords.map(kind)).toContain("subagent");
    await session.dispose();
  });

  it("registers both subagent tools in a session's toolset without a warning", async () => {
    const env = await start([]);
    const warnings: string[] = [];
    const agent = await createAgent({
      dataRoot: env.dataRoot,
      logger: { warn: (line) => warnings.push(line) },
    });
    const session = await agent.createSession({ workspaceDir: env.workspaceDir, model: MODEL });
    expect(session.tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(["run_subagent", "input_subagent"]),
    );
    expect(warnings.filter((line) => line.includes("subagent"))).toEqual([]);
    await session.dispose();
  });

  it("caps depth at 1: the child has no subagent tools, and its attempt to call one is refused", async () => {
    const env = await start([
      { tool_calls: [runSubagent("call_run", { prompt: "Try to delegate further." })] },
      { tool_calls: [runSubagent("child_run", { prompt: "nested" })] },
      { text: "I cannot delegate." },
      { text: "ok" },
    ]);
    const { session, yielded } = await foregroundRun(env);
    expect(toolNames(bodyOf(env, 0))).toEqual(expect.arrayContaining(["run_subagent", "input_subagent"]));
    const childTools = toolNames(bodyOf(env, 1));
    expect(childTools).toContain("exec_command");
    expect(childTools).not.toContain("run_subagent");
    expect(childTools).not.toContain("input_subagent");
    // The child's nested call got a failed output (streamed into the parent with origin).
    const nested = yielded.find(
      (m) =>
        m.origin !== undefined &&
        kind(m) === "tool_call_output" &&
        (m.payload as { tool_call_id: string }).tool_call_id === "child_run",
    );
    expect(nested?.payload).toMatchObject({ stop_reason: "failed" });
    expect(String((nested?.payload as { output?: string } | undefined)?.output)).toContain(
      'Unknown tool "run_subagent"',
    );
    expect(session.subagents).toHaveLength(1);
    await session.dispose();

    // A subagent tool without a parent's manager refuses with the depth message.
    const definition = DEFAULT_TOOL_DEFINITIONS.find((d) => d.name === "run_subagent");
    if (!definition) throw new Error("run_subagent has no default definition");
    const tool = createRunSubagentTool(definition, undefined);
    const run = tool.execute({ prompt: "x", description: "d" }, { toolCallId: "t1" } as ToolExecutionContext);
    const first = await run.next();
    expect((first.value as OmniMessage).payload).toMatchObject({ output: DEPTH_CAP_MESSAGE });
    expect((await run.next()).value).toEqual({ stopReason: "failed" });
  });

  it("runs the child on model_id with provider; model_id without provider or an unknown model is a clear argument error", async () => {
    const env = await start(
      [
        {
          tool_calls: [
            runSubagent("call_other", { prompt: "Use the other model.", ...CHILD_MODEL }),
            runSubagent("call_no_provider", { prompt: "x", model_id: CHILD_MODEL_ID }),
            runSubagent("call_no_model", { prompt: "x", provider: CHILD_PROVIDER }),
            runSubagent("call_unknown", { prompt: "x", provider: "nowhere", model_id: "nothing" }),
          ],
        },
        { text: "ok" },
      ],
      { childScript: [{ text: "Answer from the child model." }] },
    );
    const { session, yielded } = await foregroundRun(env);
    const other = outputOf(yielded, "call_other");
    expect(other.output.startsWith("Answer from the child model.")).toBe(true);
    expect(bodyOf(env, 0, "llm2").model).toBe(CHILD_MODEL_ID);
    const childId = pointerOf(traceRecords(session.tracePath))?.session_id as string;
    expect(sessionRecords(env.location, childId)[0].payload).toMatchObject({
      provider: CHILD_PROVIDER,
      model_id: CHILD_MODEL_ID,
      source: "subagent",
    });

    const noProvider = outputOf(yielded, "call_no_provider");
    expect(noProvider.stop_reason).toBe("failed");
    expect(noProvider.output).toContain('argument "model_id" ("child-model") needs "provider"');
    const noModel = outputOf(yielded, "call_no_model");
    expect(noModel.stop_reason).toBe("failed");
    expect(noModel.output).toContain('argument "provider" ("fake2") is given without "model_id"');
    const unknown = outputOf(yielded, "call_unknown");
    expect(unknown.stop_reason).toBe("failed");
    expect(unknown.output).toContain("the subagent could not be started:");
    expect(unknown.output).toContain("nowhere/nothing");
    // Only the good call made a child (one pointer, one kept subagent); the server saw one child request.
    expect(traceRecords(session.tracePath).filter((m) => kind(m) === "subagent")).toHaveLength(1);
    expect(session.subagents).toHaveLength(1);
    expect(env.llm2.requests).toHaveLength(1);
    await session.dispose();
  });

  it("counts the child's token usage into the parent's session totals, and stops the child at subagent_budget", async () => {
    const env = await start(
      [
        { tool_calls: [runSubagent("call_run", { prompt: "Run two steps.", ...CHILD_MODEL })] },
        { text: "ok" },
      ],
      {
        childScript: [{ tool_calls: [exec("child_exec", "echo step-one")] }, { text: "never reached" }],
        config: { subagent_budget: { max_tokens: 1 } },
      },
    );
    const { session, yielded } = await foregroundRun(env);
    const out = outputOf(yielded, "call_run");
    // The first request ran (nothing spent yet); the budget stopped the second one.
    expect(env.llm2.requests).toHaveLength(1);
    expect(out.stop_reason).toBe("failed");
    expect(out.output).toMatch(/\[subagent sub_1 finished \(aborted: .*token/);
    const childLimit = yielded.find((m) => m.origin !== undefined && kind(m) === "limit_reached");
    expect(childLimit?.payload).toMatchObject({ limit: "tokens", max: 1 });

    type Usage = { request: { total: number }; session: { total: number } };
    const usage = (own: boolean) =>
      yielded
        .filter((m) => kind(m) === "token_usage" && (m.origin === undefined) === own)
        .map((m) => m.payload as Usage);
    const parentOwn = usage(true);
    const child = usage(false);
    const sum = (list: Usage[]) => list.reduce((total, u) => total + u.request.total, 0);
    expect(child.length).toBe(1);
    expect(parentOwn.at(-1)?.session.total).toBe(sum(parentOwn) + sum(child));
    // The child's own trace keeps only its own totals.
    expect(child[0].session.total).toBe(child[0].request.total);
    await session.dispose();
  });
});
