import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SystemConfigInput } from "@penguin/state";
import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { createAgent } from "../../src/sdk/agent.js";
import { SetupError } from "../../src/sdk/setup-error.js";
import { stdioServer } from "../mcp/support.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";
import { collect, payloadsOf, stack, toolMessage, traceRecords } from "./support.js";

// A hook's `tools` names the tools it applies to. A misspelt name would make the hook never run
// (for a before-hook, a safety check that silently does nothing), so names are checked like
// allowed_tools: against the built-in, custom and `mcp__<server>__` tool names of the agent.

const start = cleanedUpAfterEach(stack);

const exec = (cmd: string, id: string) => ({
  id,
  name: "exec_command",
  arguments: { description: "run it", cmd },
});

/** createAgent with `config` in the data root of a started stack: its error, or undefined. */
async function agentError(
  config: SystemConfigInput,
  tools: NonNullable<Parameters<typeof createAgent>[0]>["tools"] = [],
) {
  const env = await start([{ text: "never asked" }]);
  return createAgent({ dataRoot: env.dataRoot, config, tools, logger: { warn: () => {} } }).then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe("a hook of the agent's config", () => {
  it("that names a tool no tool has stops the agent from loading, naming the hook, the name and the tools", async () => {
    const error = await agentError({
      hooks: { before_tool: [{ name: "no-rm", command: "exit 2", tools: ["exec_command", "exec_comand"] }] },
    });
    expect(error).toBeInstanceOf(SetupError);
    expect((error as SetupError).kind).toBe("config");
    const message = (error as Error).message;
    expect(message).toContain(
      'agent "default": hook "no-rm" (before_tool) lists "exec_comand" in tools, which no tool has',
    );
    expect(message).toMatch(/The tools are: exec_command, .*read_file/);
    expect(message).toContain("Fix the name or remove it from the hook's tools.");
    expect(message).not.toContain('"exec_command"');
  });

  it("is checked in after_tool too, every bad hook named at once", async () => {
    const error = await agentError({
      hooks: {
        before_tool: [{ name: "guard", command: "true", tools: ["writefile"] }],
        after_tool: [{ name: "log", command: "true", tools: ["read_file", "Read_File"] }],
      },
    });
    const message = (error as Error).message;
    expect(message).toContain('hook "guard" (before_tool) lists "writefile"');
    expect(message).toContain('hook "log" (after_tool) lists "Read_File"');
  });

  it("may name a tool registered in code and any tool of a configured MCP server, not of another server", async () => {
    const custom = [
      {
        name: "shout",
        definition: {
          description: "Shout.",
          parameters: { type: "object" as const },
          permission: "r" as const,
        },
        async *execute() {},
      },
    ];
    const ok = await agentError(
      {
        tools: { mcpServers: [stdioServer("files")] },
        hooks: { before_tool: [{ name: "g", command: "true", tools: ["shout", "mcp__files__read_text"] }] },
      },
      custom,
    );
    expect(ok).toBeUndefined();
    const error = await agentError({
      tools: { mcpServers: [stdioServer("files")] },
      hooks: {
        before_tool: [{ name: "g", command: "true", tools: ["mcp__file__read_text", "mcp__files__"] }],
      },
    });
    const message = (error as Error).message;
    expect(message).toContain('lists "mcp__file__read_text", "mcp__files__" in tools');
    expect(message).toContain("or an MCP tool named mcp__files__<tool>");
  });

  it("without a tools list applies to every tool and needs no check", async () => {
    expect(await agentError({ hooks: { before_tool: [{ name: "all", command: "true" }] } })).toBeUndefined();
  });
});

describe("a workspace hook that names an unknown tool", () => {
  function writeHooks(dir: string, yaml: string) {
    mkdirSync(join(dir, ".agents"), { recursive: true });
    writeFileSync(join(dir, ".agents", "hooks.yaml"), yaml);
  }

  it("in the workspace stops the session from starting when workspace hooks are on", async () => {
    const env = await start([{ text: "never asked" }], { hooks: { allow_workspace_hooks: true } });
    writeHooks(
      env.workspaceDir,
      "before_tool:\n  - name: guard\n    command: exit 2\n    tools: [exec_cmd]\n",
    );
    const error = await env.session().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SetupError);
    expect((error as SetupError).kind).toBe("config");
    expect((error as Error).message).toContain(
      'hook "workspace:guard" (before_tool) lists "exec_cmd" in tools',
    );
    expect(env.llm.requests).toHaveLength(0);
  });

  it("in a directory change_directory enters is not loaded, with a warning in the output; the others load", async () => {
    const env = await start(
      [
        { tool_calls: [{ id: "cd1", name: "change_directory", arguments: { path: "pkg" } }] },
        { tool_calls: [exec("echo ran > ran.txt", "e1")] },
        { text: "done" },
      ],
      { tools: { preset: "extended", writeGuard: false }, hooks: { allow_workspace_hooks: true } },
    );
    const pkg = join(env.workspaceDir, "pkg");
    // "typo" would deny every command if it were loaded; "mark" records that it ran.
    writeHooks(
      pkg,
      [
        "before_tool:",
        "  - name: typo",
        "    command: echo blocked >&2; exit 2",
        "    tools: [exec_command, exec_comand]",
        "  - name: mark",
        "    command: touch marked.txt",
        "    tools: [exec_command]",
        "",
      ].join("\n"),
    );
    const session = await env.session();
    await collect(session.run("Work in pkg.", { approve: allowAll }));
    await session.dispose();

    const output = toolMessage(env, 1, "cd1");
    expect(output).toContain("These hooks now run around your tool calls: workspace:mark (before_tool).");
    expect(output).toContain(
      `Warning: not loaded from ${pkg}/.agents/hooks.yaml: hook "workspace:typo" (before_tool) lists "exec_comand" in tools, which no tool has. The session's tools are: exec_command,`,
    );
    // The session went on: the command ran, the good hook ran, the left-out one did not deny it.
    expect(existsSync(join(pkg, "ran.txt"))).toBe(true);
    expect(existsSync(join(pkg, "marked.txt"))).toBe(true);
    const hooksRun = payloadsOf(traceRecords(session.tracePath), "hook_result").map((r) => r.hook);
    expect(hooksRun).toEqual(["workspace:mark"]);
  });

  it("in a directory a resumed session goes back to is left out with a warning for the operator", async () => {
    const env = await start(
      [
        { tool_calls: [{ id: "cd1", name: "change_directory", arguments: { path: "pkg" } }] },
        { text: "moved" },
        { tool_calls: [exec("true", "e2")] },
        { text: "done" },
      ],
      { tools: { preset: "extended", writeGuard: false }, hooks: { allow_workspace_hooks: true } },
    );
    const pkg = join(env.workspaceDir, "pkg");
    writeHooks(
      pkg,
      "before_tool:\n  - name: typo\n    command: exit 2\n    tools: [exec_comand, exec_command]\n",
    );
    const first = await env.session();
    await collect(first.run("Move.", { approve: allowAll }));
    await first.dispose();

    const resumed = await env.agent.resumeSession(first.id);
    await collect(resumed.run("Run.", { approve: allowAll }));
    await resumed.dispose();
    expect(env.warnings.join("\n")).toContain(
      `hooks of ${pkg} not loaded: hook "workspace:typo" (before_tool)`,
    );
    expect(payloadsOf(traceRecords(resumed.tracePath), "hook_result")).toEqual([]);
    expect(toolMessage(env, 3, "e2")).not.toContain("denied");
  });
});
