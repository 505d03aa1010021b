import { readdirSync, readlinkSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createAgent } from "../../src/sdk/agent.js";
import type { CustomToolRegistration } from "../../src/sdk/custom-tools.js";
import { SetupError } from "../../src/sdk/setup-error.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";
import { collect, MODEL, setup } from "./fixtures.js";

// Mistakes a program makes when it sets Penguin up are SetupErrors at createAgent, with a message
// that says what to fix; and a session can always be disposed.

const start = cleanedUpAfterEach(setup);

function customTool(name: string): CustomToolRegistration {
  return {
    name,
    definition: {
      description: "says hi",
      parameters: { type: "object", properties: {} },
      permission: "r",
    },
    async *execute(_args, ctx) {
      yield {
        timestamp: new Date().toISOString(),
        type: "model_msg",
        payload: {
          type: "partial_tool_call_output",
          event_type: "delta",
          tool_call_id: ctx.toolCallId,
          output: "hi",
        },
      };
    },
  };
}

/** How many of this process's open file descriptors point at `path`. */
function openDescriptors(path: string): number {
  return readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === path;
    } catch {
      return false;
    }
  }).length;
}

describe("createAgent refuses a bad setup with a SetupError", () => {
  it("an invalid config given in code names the field", async () => {
    const env = await start([]);
    const made = createAgent({ dataRoot: env.dataRoot, config: { max_turns: 0 } as never });
    await expect(made).rejects.toBeInstanceOf(SetupError);
    await expect(made).rejects.toThrow(/^invalid agent config at max_turns: /);
  });

  it("a custom tool named like a built-in tool of the agent, even one only some models get", async () => {
    const env = await start([]);
    for (const name of ["exec_command", "read_image", "describe_image"]) {
      const made = createAgent({ dataRoot: env.dataRoot, tools: [customTool(name)] });
      await expect(made).rejects.toBeInstanceOf(SetupError);
      await expect(made).rejects.toThrow(`custom tool "${name}": a built-in tool of the agent has that name`);
    }
  });

  it("a custom tool registered twice, or with a bad definition", async () => {
    const env = await start([]);
    const twice = createAgent({ dataRoot: env.dataRoot, tools: [customTool("hello"), customTool("hello")] });
    await expect(twice).rejects.toThrow(SetupError);
    await expect(twice).rejects.toThrow(/registered twice/);
    const bad = {
      ...customTool("broken"),
      definition: { description: "x", parameters: {}, permission: "x" },
    };
    await expect(createAgent({ dataRoot: env.dataRoot, tools: [bad as never] })).rejects.toThrow(SetupError);
  });

  it("a custom tool with a free name is fine", async () => {
    const env = await start([]);
    const agent = await createAgent({
      dataRoot: env.dataRoot,
      tools: [customTool("hello")],
      logger: { warn: () => {} },
    });
    const session = await agent.createSession({ workspaceDir: env.workspaceDir, model: MODEL });
    expect(session.tools.map((tool) => tool.name)).toContain("hello");
    await session.dispose();
  });
});

describe("dispose", () => {
  it("closes the trace of a session whose run() was never read, and that run never starts", async () => {
    const env = await start([{ text: "never" }]);
    const session = await env.agent.createSession({ workspaceDir: env.workspaceDir, model: MODEL });
    const path = session.tracePath;
    expect(openDescriptors(path)).toBe(1);
    const unread = session.run("Hi.");
    await session.dispose();
    expect(openDescriptors(path)).toBe(0);
    expect(session.isRunning).toBe(false);
    await expect(collect(unread)).rejects.toThrow(/disposed before this run was read/);
    expect(env.llm.requests).toHaveLength(0);
  });
});
