import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { createAgent } from "../../src/sdk/agent.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";
import { collect, kind, MODEL, RETRY_FAST, setup } from "./fixtures.js";

// The model settings the docs promise, seen in what reaches the fake provider over HTTP.

const start = cleanedUpAfterEach(setup);

/** The output cap a Chat Completions request carried, whichever field the profile uses. */
function capOf(body: unknown): number | undefined {
  const b = body as { max_tokens?: number; max_completion_tokens?: number };
  return b.max_completion_tokens ?? b.max_tokens;
}

describe("model settings", () => {
  it("a model entry's max_tokens is the cap its sessions ask for, over the agent's model.max_tokens, also after resume", async () => {
    const env = await start([{ text: "One." }, { text: "Two." }], { max_tokens: 777 });
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    await collect(session.run("Hi.", { approve: allowAll }));
    await session.dispose();
    const resumed = await env.agent.resumeSession(session.id);
    await collect(resumed.run("Again.", { approve: allowAll }));
    await resumed.dispose();
    expect(env.llm.requests.map((r) => capOf(r.body))).toEqual([777, 777]);
  });

  it("without one, the agent's model.max_tokens applies", async () => {
    const env = await start([{ text: "One." }]);
    const agent = await createAgent({
      dataRoot: env.dataRoot,
      config: { model: { max_tokens: 4_321 } },
      logger: { warn: () => {} },
    });
    const session = await agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    await collect(session.run("Hi.", { approve: allowAll }));
    await session.dispose();
    expect(capOf(env.llm.requests[0].body)).toBe(4_321);
  });

  it("model.timeoutMs reaches the adapter: a provider that never answers ends the request as timeout after it", async () => {
    const env = await start([{ text: "never sent", stall: { after_chunks: 0 } }]);
    const agent = await createAgent({
      dataRoot: env.dataRoot,
      config: { model: { timeoutMs: 300 } },
      logger: { warn: () => {} },
    });
    const session = await agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: { maxRetries: 0 },
    });
    const messages = await collect(session.run("Hi.", { approve: allowAll }));
    await session.dispose();
    const end = messages.find((m) => kind(m) === "request_end")?.payload as {
      status: string;
      error_message?: string;
    };
    expect(end.status).toBe("timeout");
    expect(end.error_message).toMatch(/the provider did not answer in time/);
    expect(messages.at(-1)?.payload).toMatchObject({ type: "task_end", status: "timeout" });
  });
});
