import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { createAgent } from "../../src/sdk/agent.js";
import { SetupError } from "../../src/sdk/setup-error.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";
import { collect, kind, MODEL, RETRY_FAST, setup, traceRecords } from "./fixtures.js";

// Hard budgets through the SDK, against fake-llm over HTTP with real processes.

const start = cleanedUpAfterEach(setup);
const payloads = (messages: { payload: unknown }[], type: string) =>
  messages.map((m) => m.payload as { type: string } & Record<string, unknown>).filter((p) => p.type === type);

describe("a cost budget without prices", () => {
  it("asked for in code: createSession refuses with a SetupError that says how to fix it", async () => {
    const env = await start([{ text: "never" }]);
    const attempt = env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      budget: { maxCostUsd: 0.5 },
    });
    await expect(attempt).rejects.toBeInstanceOf(SetupError);
    await expect(attempt).rejects.toThrow(/needs the model's prices, and fake\/fake-model has none/);
    // With prices (from the project config or in code) the same budget is fine.
    const priced = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      budget: { maxCostUsd: 0.5 },
      prices: { input_per_mtok: 1, output_per_mtok: 2 },
    });
    await priced.dispose();
    expect(env.llm.requests).toHaveLength(0);
  });

  it("from the agent's config: the session starts, and the agent's logger says the budget does not apply", async () => {
    const env = await start([{ text: "Hello." }]);
    const warnings: string[] = [];
    const agent = await createAgent({
      dataRoot: env.dataRoot,
      config: { budget: { max_cost_usd: 0.5 } },
      logger: { warn: (line) => warnings.push(line) },
    });
    const session = await agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    const messages = await collect(session.run("Hi.", { approve: allowAll }));
    await session.dispose();
    expect(messages.at(-1)?.payload).toMatchObject({ type: "task_end", status: "completed" });
    expect(warnings).toEqual([
      expect.stringMatching(/cost budget \(\$0\.5\) does not apply .* no prices for fake\/fake-model/),
    ]);
  });
});

describe("budgets during a task", () => {
  it("a token budget is checked before each retry: spent by a failed attempt, the task stops instead of retrying", async () => {
    // Anthropic reports the input tokens when the stream starts, so a cut attempt has spent them.
    const env = await start(
      [
        { text: "Half an ans", chunk_size: 4, cut: { after_chunks: 1 }, usage: { input_tokens: 400 } },
        { text: "never requested" },
      ],
      { api: "anthropic" },
    );
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
      budget: { maxTokens: 50 },
    });
    const messages = await collect(session.run("Answer.", { approve: allowAll }));
    await session.dispose();
    expect(env.llm.requests).toHaveLength(1);
    expect(payloads(messages, "request_end")[0]).toMatchObject({ status: "failed", attempt: 1 });
    const [hit] = payloads(messages, "limit_reached");
    expect(payloads(messages, "limit_reached")).toHaveLength(1);
    expect(hit).toMatchObject({ limit: "tokens", max: 50 });
    expect(hit.used).toBeGreaterThanOrEqual(400);
    expect(messages.at(-1)?.payload).toMatchObject({ type: "task_end", status: "aborted" });
  });

  it("the wall-clock budget stops a running tool when it runs out, ending with its limit (not a user abort)", async () => {
    const env = await start([
      {
        tool_calls: [
          {
            id: "call_long",
            name: "exec_command",
            arguments: { description: "long", cmd: "sleep 5; echo done > finished.txt" },
          },
        ],
      },
      { text: "Understood, it was stopped." },
    ]);
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
      budget: { maxWallMs: 400 },
    });
    const messages = await collect(session.run("Run the long job.", { approve: allowAll }));
    expect(payloads(messages, "limit_reached")).toEqual([
      expect.objectContaining({ limit: "wall_time", max: 400 }),
    ]);
    expect(payloads(messages, "abort")).toHaveLength(0);
    expect(messages.at(-1)?.payload).toMatchObject({
      type: "task_end",
      status: "aborted",
      message: expect.stringContaining("time budget reached"),
    });
    expect(payloads(messages, "tool_call_output")[0]).toMatchObject({
      tool_call_id: "call_long",
      stop_reason: "aborted",
    });
    expect(existsSync(join(env.workspaceDir, "finished.txt"))).toBe(false);
    // The trace ends the task the same way (a resume sees no user interrupt).
    const records = traceRecords(session.tracePath);
    expect(records.slice(-2).map(kind)).toEqual(["limit_reached", "task_end"]);
    await session.dispose();
  });
});
