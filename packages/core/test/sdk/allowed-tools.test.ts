import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { systemConfigFile } from "@penguin/state";
import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { createAgent } from "../../src/sdk/agent.js";
import { SetupError } from "../../src/sdk/setup-error.js";
import {
  chatMessages,
  collect,
  payloadsOf,
  type Stack,
  stack,
  toolMessage,
  traceRecords,
} from "../hooks/support.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";

// "`allowed-tools`: a per-agent (and per-child-agent) list that limits which tools the model is
// offered; a name that no tool has is a configuration error with a clear message."

const start = cleanedUpAfterEach(stack);

const toolNamesOf = (env: Stack, n: number) =>
  ((env.llm.requests[n]?.body as { tools?: { function: { name: string } }[] } | undefined)?.tools ?? []).map(
    (tool) => tool.function.name,
  );

describe("allowed_tools", () => {
  it("with a name that no tool has is a configuration error that names it", async () => {
    const env = await start([{ text: "never asked" }]);
    const error = await createAgent({
      dataRoot: env.dataRoot,
      config: { allowed_tools: ["read_file", "red_file"] },
      logger: { warn: () => {} },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SetupError);
    expect((error as SetupError).kind).toBe("config");
    const message = (error as Error).message;
    expect(message).toContain('allowed_tools names "red_file", which no tool has');
    expect(message).toMatch(/The agent's tools are: exec_command, .*read_file/);
  });

  it("limits the tools the model is offered: the request's tool list has only those", async () => {
    const env = await start([{ text: "done" }], {
      tools: { preset: "extended" },
      allowed_tools: ["read_file", "list_files", "exec_command"],
    });
    const session = await env.session();
    await collect(session.run("Look around.", { approve: allowAll }));
    await session.dispose();
    // In toolset order, whatever the order of the list; every agent keeps the messaging tools and stop_agent.
    const offered = [
      "exec_command",
      "read_file",
      "list_files",
      "send_message",
      "wait_messages",
      "ask",
      "stop_agent",
    ];
    expect(toolNamesOf(env, 0)).toEqual(offered);
    expect(session.tools.map((t) => t.name)).toEqual(offered);
    const [ready] = payloadsOf(traceRecords(session.tracePath), "tool_list_ready");
    expect(((ready?.tools ?? []) as { name: string }[]).map((t) => t.name)).toEqual(offered);
  });

  it("leaves the tools it removed out of the built-in system prompt", async () => {
    const env = await start([{ text: "done" }], { allowed_tools: ["read_file", "edit_file", "write_file"] });
    const session = await env.session();
    await collect(session.run("Look around.", { approve: allowAll }));
    await session.dispose();
    const system = String(chatMessages(env.llm, 0).find((m) => m.role === "system")?.content);
    const tools = system.slice(system.indexOf("# Tools"), system.indexOf("# When to stop"));
    expect(tools).toContain("- Use read_file, edit_file and write_file for files. Paths are absolute");
    for (const removed of ["exec_command", "input_command", "run_subagent", "the shell"]) {
      expect(tools).not.toContain(removed);
    }
  });

  it("keeps exec_command in the prompt without input_command when only that one is removed", async () => {
    const env = await start([{ text: "done" }], { allowed_tools: ["exec_command", "read_file"] });
    const session = await env.session();
    await collect(session.run("Look around.", { approve: allowAll }));
    await session.dispose();
    const system = String(chatMessages(env.llm, 0).find((m) => m.role === "system")?.content);
    expect(system).toContain("- exec_command runs `bash -lc` in the workspace.");
    expect(system).not.toContain("input_command");
    expect(system).toContain("- Use read_file for files, and the shell for searching");
  });

  it("answers a call to a tool left out as an unknown tool, and it does not run", async () => {
    const env = await start(
      [
        { tool_calls: [{ id: "w1", name: "write_file", arguments: { file_path: "x.txt", content: "x" } }] },
        { text: "done" },
      ],
      { allowed_tools: ["read_file"] },
    );
    const session = await env.session();
    await collect(session.run("Write.", { approve: allowAll }));
    await session.dispose();
    expect(toolMessage(env, 1, "w1")).toBe('Unknown tool "write_file". Available tools: read_file.');
  });

  it("accepts the names of tools registered in code", async () => {
    const env = await start([{ text: "done" }]);
    const agent = await createAgent({
      dataRoot: env.dataRoot,
      config: { allowed_tools: ["shout"] },
      tools: [
        {
          name: "shout",
          definition: { description: "Shout.", parameters: { type: "object" }, permission: "r" },
          async *execute() {},
        },
      ],
      logger: { warn: () => {} },
    });
    const session = await agent.createSession({ workspaceDir: env.workspaceDir, model: "fake/fake-model" });
    expect(session.tools.map((t) => t.name)).toEqual(["shout"]);
    await session.dispose();
  });

  it("of a child agent applies to the subagent sessions run with it", async () => {
    const env = await start([
      {
        tool_calls: [
          {
            id: "sub1",
            name: "run_subagent",
            arguments: { description: "delegate", prompt: "Say hi.", agent_id: "reader" },
          },
        ],
      },
      { text: "hi from the child" },
      { text: "done" },
    ]);
    const file = systemConfigFile(env.dataRoot, "reader");
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(file, "allowed_tools: [read_file]\n");
    const session = await env.session();
    await collect(session.run("Delegate.", { approve: allowAll }));
    await session.dispose();
    expect(toolNamesOf(env, 0)).toContain("run_subagent");
    expect(toolNamesOf(env, 1)).toEqual(["read_file"]);
    expect(toolMessage(env, 2, "sub1")).toContain("hi from the child");
  });
});
