import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { saveProjectConfig, systemConfigFile, tracesDir } from "@penguin/state";
import { ProjectConfigSchema } from "@penguin/state/schemas";
import { afterEach, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { allowAll } from "../../src/approval/policies.js";
import { ANTHROPIC_THINKING_BUDGET } from "../../src/models/anthropic-request.js";
import type { ThinkingLevel } from "../../src/models/types.js";
import { createAgent } from "../../src/sdk/agent.js";
import { collect, MODEL, setup } from "../sdk/fixtures.js";

type Env = Awaited<ReturnType<typeof setup>>;
const envs: Env[] = [];
afterEach(async () => {
  await Promise.all(envs.splice(0).map((e) => e.cleanup()));
});

async function start(turns: number) {
  const env = await setup(Array.from({ length: turns }, (_, n) => ({ text: `answer ${n + 1}` })));
  envs.push(env);
  return env;
}

/** The body of every request fake-llm received, in order. */
const bodies = (env: Env) => env.llm.requests.map((r) => r.body as Record<string, unknown>);

/** Sets `model.thinking_level` in the default agent's system_config.yaml, as a user would. */
function setConfiguredLevel(env: Env, level: ThinkingLevel) {
  const file = systemConfigFile(env.dataRoot, "default");
  const config = (parse(readFileSync(file, "utf8")) ?? {}) as { model?: Record<string, unknown> };
  config.model = { ...config.model, thinking_level: level };
  writeFileSync(file, stringify(config));
}

describe("thinking level: session, run and config settings reach the request (fake-llm over HTTP)", () => {
  it("OpenAI chat: reasoning_effort from the session, a run's override, and none (field left out)", async () => {
    const env = await start(4);
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      thinkingLevel: "low",
    });
    expect(session.thinkingLevel).toBe("low");
    await collect(session.run("one", { approve: allowAll }));
    await collect(session.run("two", { approve: allowAll, thinkingLevel: "max" }));
    await collect(session.run("three", { approve: allowAll }));
    await collect(session.run("four", { approve: allowAll, thinkingLevel: "none" }));
    await session.dispose();
    const efforts = bodies(env).map((b) => ("reasoning_effort" in b ? b.reasoning_effort : "(absent)"));
    // A run's level applies to that run only; the session's comes back on the next one.
    expect(efforts).toEqual(["low", "xhigh", "low", "(absent)"]);
    expect(session.thinkingLevel).toBe("low");
  });

  it("system_config.yaml's model.thinking_level is the default; createSession's level wins over it", async () => {
    const env = await start(2);
    setConfiguredLevel(env, "high");
    const agent = await createAgent({ dataRoot: env.dataRoot, logger: { warn: () => {} } });
    const configured = await agent.createSession({ workspaceDir: env.workspaceDir, model: MODEL });
    expect(configured.thinkingLevel).toBe("high");
    await collect(configured.run("hi", { approve: allowAll }));
    await configured.dispose();
    const chosen = await agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      thinkingLevel: "medium",
    });
    await collect(chosen.run("hi", { approve: allowAll }));
    await chosen.dispose();
    expect(bodies(env).map((b) => b.reasoning_effort)).toEqual(["high", "medium"]);

    // A resumed session takes the configured level unless told otherwise.
    const resumed = await agent.resumeSession(chosen.id);
    expect(resumed.thinkingLevel).toBe("high");
    await resumed.dispose();
    const resumedLow = await agent.resumeSession(chosen.id, { thinkingLevel: "low" });
    expect(resumedLow.thinkingLevel).toBe("low");
    await resumedLow.dispose();
  });

  it("Anthropic: thinking.budget_tokens per level, from the session, a run and the config", async () => {
    const env = await start(4);
    await saveProjectConfig(
      env.dataRoot,
      ProjectConfigSchema.parse({
        models: [
          {
            provider: "claude",
            api: "anthropic",
            model_id: "fake-model",
            base_url: env.llm.url,
            api_key: "sk-test",
            context_window: 200_000,
          },
        ],
      }),
    );
    setConfiguredLevel(env, "max");
    const agent = await createAgent({ dataRoot: env.dataRoot, logger: { warn: () => {} } });
    const fromConfig = await agent.createSession({
      workspaceDir: env.workspaceDir,
      model: "claude/fake-model",
    });
    await collect(fromConfig.run("one", { approve: allowAll }));
    await fromConfig.dispose();
    const session = await agent.createSession({
      workspaceDir: env.workspaceDir,
      model: "claude/fake-model",
      thinkingLevel: "low",
    });
    await collect(session.run("two", { approve: allowAll }));
    await collect(session.run("three", { approve: allowAll, thinkingLevel: "high" }));
    await collect(session.run("four", { approve: allowAll, thinkingLevel: "none" }));
    await session.dispose();
    expect(env.llm.requests.every((r) => r.protocol === "anthropic-messages")).toBe(true);
    const thinking = bodies(env).map((b) => b.thinking ?? "(absent)");
    expect(thinking).toEqual([
      { type: "enabled", budget_tokens: ANTHROPIC_THINKING_BUDGET.max },
      { type: "enabled", budget_tokens: ANTHROPIC_THINKING_BUDGET.low },
      { type: "enabled", budget_tokens: ANTHROPIC_THINKING_BUDGET.high },
      "(absent)",
    ]);
    // The budget stays below max_tokens (the agent's default 32000).
    for (const body of bodies(env).slice(0, 3)) {
      expect((body.thinking as { budget_tokens: number }).budget_tokens).toBeLessThan(
        body.max_tokens as number,
      );
    }
  });

  it("an unknown level is refused with the list of levels, before any request", async () => {
    const env = await start(1);
    await expect(
      env.agent.createSession({
        workspaceDir: env.workspaceDir,
        model: MODEL,
        thinkingLevel: "extreme" as ThinkingLevel,
      }),
    ).rejects.toThrow(/thinking level "extreme" is not one of none, low, medium, high, max/);
    // Refused before the session exists: no trace is left behind.
    const traces = tracesDir(env.dataRoot);
    expect(existsSync(traces) ? readdirSync(traces) : []).toEqual([]);
    const session = await env.agent.createSession({ workspaceDir: env.workspaceDir, model: MODEL });
    expect(() => session.run("hi", { thinkingLevel: "HIGH" as ThinkingLevel })).toThrow(/not one of/);
    expect(session.isRunning).toBe(false);
    await session.dispose();
    expect(env.llm.requests).toHaveLength(0);
  });
});
