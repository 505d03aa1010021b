import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { SetupError } from "../../src/sdk/setup-error.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";
import { collect, payloadsOf, stack, toolMessage, traceRecords } from "./support.js";

// Hooks around tool calls, end to end: an agent configured in code, fake-llm over HTTP, real hook
// processes. What the model reads is taken from the request fake-llm received after the call.

const start = cleanedUpAfterEach(stack);

const exec = (cmd: string, id: string) => ({
  id,
  name: "exec_command",
  arguments: { description: "run it", cmd },
});

const twoTurns = (calls: ReturnType<typeof exec>[]) => [{ tool_calls: calls }, { text: "done" }];

describe("a before-hook", () => {
  it("that denies: the model reads its reason and the call's one approval_decision names the hook", async () => {
    const env = await start(twoTurns([exec("rm -f keep.txt", "c1")]), {
      hooks: {
        before_tool: [
          {
            name: "no-rm",
            command: "echo 'removing files is not allowed in this repository' >&2; exit 2",
            tools: ["exec_command"],
          },
        ],
      },
    });
    writeFileSync(join(env.workspaceDir, "keep.txt"), "still here");
    const session = await env.session();
    const messages = await collect(session.run("Clean up.", { approve: allowAll }));
    await session.dispose();

    // Denied under allow-all: the command never ran.
    expect(readFileSync(join(env.workspaceDir, "keep.txt"), "utf8")).toBe("still here");
    const decisions = payloadsOf(traceRecords(session.tracePath), "approval_decision");
    expect(decisions).toHaveLength(1);
    expect(decisions[0]).toMatchObject({
      tool_call_id: "c1",
      decision: "deny",
      source: { kind: "hook", name: "no-rm" },
      reason: "removing files is not allowed in this repository",
    });
    const [result] = payloadsOf(messages, "hook_result");
    expect(result).toMatchObject({
      hook: "no-rm",
      phase: "before_tool",
      tool_call_id: "c1",
      decision: "deny",
      outcome: "exited",
      exit_code: 2,
    });
    const read = toolMessage(env, 1, "c1");
    expect(read).toContain("denied by hook no-rm");
    expect(read).toContain("removing files is not allowed in this repository");
  });

  it("that allows lets the policy decide, and its run is traced", async () => {
    const env = await start(twoTurns([exec("echo ran-it", "c1")]), {
      hooks: { before_tool: [{ name: "audit", command: "cat > /dev/null; exit 0" }] },
    });
    const session = await env.session();
    const messages = await collect(session.run("Go.", { approve: allowAll }));
    await session.dispose();
    const [decision] = payloadsOf(messages, "approval_decision");
    expect(decision).toMatchObject({ decision: "allow", source: { kind: "mode", name: "allow-all" } });
    expect(payloadsOf(messages, "hook_result")).toEqual([
      expect.objectContaining({ hook: "audit", decision: "allow", outcome: "exited", exit_code: 0 }),
    ]);
    expect(toolMessage(env, 1, "c1")).toContain("ran-it");
  });

  it("can deny with JSON on stdout, and gets the call as JSON on stdin", async () => {
    const env = await start(twoTurns([exec("echo should-not-run", "c1")]), {
      hooks: {
        before_tool: [
          {
            name: "json-judge",
            command: `cat > ../seen.json; echo '{"decision":"deny","reason":"use the make target instead"}'`,
          },
        ],
      },
    });
    const session = await env.session();
    await collect(session.run("Go.", { approve: allowAll }));
    await session.dispose();
    const seen = JSON.parse(readFileSync(join(env.root, "seen.json"), "utf8"));
    expect(seen).toMatchObject({
      event: "before_tool",
      session_id: session.id,
      tool_call_id: "c1",
      tool_name: "exec_command",
      arguments: { cmd: "echo should-not-run" },
      workspace: env.workspaceDir,
      cwd: env.workspaceDir,
    });
    expect(toolMessage(env, 1, "c1")).toContain("use the make target instead");
  });

  it("that times out denies the call by default", async () => {
    const env = await start(twoTurns([exec("touch made.txt", "c1")]), {
      hooks: { before_tool: [{ name: "slow", command: "sleep 20", timeout_ms: 300 }] },
    });
    const session = await env.session();
    const messages = await collect(session.run("Go.", { approve: allowAll }));
    await session.dispose();
    expect(existsSync(join(env.workspaceDir, "made.txt"))).toBe(false);
    const [decision] = payloadsOf(messages, "approval_decision");
    expect(decision).toMatchObject({
      decision: "deny",
      source: { kind: "hook", name: "slow" },
      reason: "hook slow timed out after 300 ms",
    });
    expect(payloadsOf(messages, "hook_result")[0]).toMatchObject({ outcome: "timeout", decision: "deny" });
    expect(toolMessage(env, 1, "c1")).toContain("hook slow timed out after 300 ms");
  });

  it("that crashes follows on_error: allow lets the call through, with the failure traced", async () => {
    const env = await start(twoTurns([exec("touch made.txt", "c1")]), {
      hooks: { before_tool: [{ name: "flaky", command: "echo broken >&2; exit 7", on_error: "allow" }] },
    });
    const session = await env.session();
    const messages = await collect(session.run("Go.", { approve: allowAll }));
    await session.dispose();
    expect(existsSync(join(env.workspaceDir, "made.txt"))).toBe(true);
    expect(payloadsOf(messages, "hook_result")[0]).toMatchObject({
      decision: "allow",
      exit_code: 7,
      reason: "hook flaky failed with exit code 7: broken; allowed (on_error: allow)",
    });
  });

  it("applies only to the tools it lists", async () => {
    const env = await start(twoTurns([exec("echo fine", "c1")]), {
      tools: { preset: "extended" },
      hooks: { before_tool: [{ name: "files-only", command: "exit 2", tools: ["write_file"] }] },
    });
    const session = await env.session();
    const messages = await collect(session.run("Go.", { approve: allowAll }));
    await session.dispose();
    expect(payloadsOf(messages, "hook_result")).toEqual([]);
    expect(payloadsOf(messages, "approval_decision")[0]).toMatchObject({ decision: "allow" });
  });
});

describe("an after-hook", () => {
  it("sees the call and its result on stdin; its output is traced but not shown to the model", async () => {
    const env = await start(twoTurns([exec("echo hello-from-the-tool", "c1")]), {
      hooks: { after_tool: [{ name: "record", command: "cat > ../after.json; echo AFTER-HOOK-SAID" }] },
    });
    const session = await env.session();
    const messages = await collect(session.run("Go.", { approve: allowAll }));
    await session.dispose();
    const seen = JSON.parse(readFileSync(join(env.root, "after.json"), "utf8"));
    expect(seen).toMatchObject({
      event: "after_tool",
      tool_call_id: "c1",
      tool_name: "exec_command",
      arguments: { cmd: "echo hello-from-the-tool" },
      stop_reason: "completed",
    });
    expect(seen.output).toContain("hello-from-the-tool");
    const traced = payloadsOf(traceRecords(session.tracePath), "hook_result");
    expect(traced).toEqual([
      expect.objectContaining({ hook: "record", phase: "after_tool", output: "AFTER-HOOK-SAID\n" }),
    ]);
    expect(toolMessage(env, 1, "c1")).not.toContain("AFTER-HOOK-SAID");
    // The one output of the call is still the tool's, and it streamed whole.
    const outputs = payloadsOf(messages, "tool_call_output");
    expect(outputs).toHaveLength(1);
  });

  it("with show_output adds its output to what the model reads", async () => {
    const env = await start(twoTurns([exec("echo built", "c1")]), {
      hooks: { after_tool: [{ name: "lint", command: "echo '2 lint warnings'", show_output: true }] },
    });
    const session = await env.session();
    await collect(session.run("Go.", { approve: allowAll }));
    await session.dispose();
    const read = toolMessage(env, 1, "c1");
    expect(read).toContain("built");
    expect(read).toContain("[hook lint]\n2 lint warnings");
  });

  it("does not run for a denied call", async () => {
    const env = await start(twoTurns([exec("echo x", "c1")]), {
      hooks: { after_tool: [{ name: "record", command: "touch ../after-ran" }] },
    });
    const session = await env.session();
    await collect(session.run("Go.", { approve: async () => "deny" }));
    await session.dispose();
    expect(existsSync(join(env.root, "after-ran"))).toBe(false);
  });
});

describe("workspace hooks", () => {
  const writeWorkspaceHooks = (workspaceDir: string) => {
    mkdirSync(join(workspaceDir, ".agents"), { recursive: true });
    writeFileSync(
      join(workspaceDir, ".agents", "hooks.yaml"),
      "before_tool:\n  - name: repo-guard\n    command: echo 'the repository forbids this' >&2; exit 2\n",
    );
  };

  it("are ignored without the opt-in, with a warning for the operator", async () => {
    const env = await start(twoTurns([exec("touch made.txt", "c1")]));
    writeWorkspaceHooks(env.workspaceDir);
    const session = await env.session();
    const messages = await collect(session.run("Go.", { approve: allowAll }));
    await session.dispose();
    expect(existsSync(join(env.workspaceDir, "made.txt"))).toBe(true);
    expect(payloadsOf(messages, "hook_result")).toEqual([]);
    expect(env.warnings.join("\n")).toMatch(/\.agents\/hooks\.yaml is ignored: .*allow_workspace_hooks/);
  });

  it("run with hooks.allow_workspace_hooks, named workspace:<name>", async () => {
    const env = await start(twoTurns([exec("touch made.txt", "c1")]), {
      hooks: { allow_workspace_hooks: true },
    });
    writeWorkspaceHooks(env.workspaceDir);
    const session = await env.session();
    const messages = await collect(session.run("Go.", { approve: allowAll }));
    await session.dispose();
    expect(existsSync(join(env.workspaceDir, "made.txt"))).toBe(false);
    expect(payloadsOf(messages, "approval_decision")[0]).toMatchObject({
      decision: "deny",
      source: { kind: "hook", name: "workspace:repo-guard" },
    });
    expect(toolMessage(env, 1, "c1")).toContain("the repository forbids this");
  });

  it("that are invalid stop the session from starting when opted in, naming the line", async () => {
    const env = await start([{ text: "never asked" }], { hooks: { allow_workspace_hooks: true } });
    mkdirSync(join(env.workspaceDir, ".agents"), { recursive: true });
    writeFileSync(
      join(env.workspaceDir, ".agents", "hooks.yaml"),
      "before_tool:\n  - name: x\n    comand: true\n",
    );
    const error = await env.session().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SetupError);
    expect((error as SetupError).kind).toBe("config");
    expect((error as Error).message).toMatch(/hooks\.yaml:3:\d+: before_tool\[0\]/);
  });
});
