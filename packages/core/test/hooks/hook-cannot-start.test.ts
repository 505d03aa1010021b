import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { HookSet } from "../../src/hooks/hook-set.js";
import { runHookProcess } from "../../src/hooks/run-hook.js";
import { HookRunner } from "../../src/hooks/runner.js";
import { chunkTool, makeEnvironment, runCall, tempDirs } from "../environment/support.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";
import { collect, payloadsOf, stack, toolMessage, traceRecords } from "./support.js";

// A hook whose process cannot even be spawned (a NUL byte in its command makes spawn throw
// synchronously): the runner reports it as a failed hook, and the call it wraps is decided and
// closed as with any other failing hook.

const start = cleanedUpAfterEach(stack);

const exec = (cmd: string, id: string) => ({
  id,
  name: "exec_command",
  arguments: { description: "run it", cmd },
});

const BROKEN_COMMAND = "echo before\u0000after";

describe("a hook process that cannot be spawned", () => {
  it("is reported as an error outcome, not thrown", async () => {
    const controller = new AbortController();
    const result = await runHookProcess({
      command: BROKEN_COMMAND,
      cwd: process.cwd(),
      input: "{}\n",
      timeoutMs: 10_000,
      maxOutputChars: 1_000,
      signal: controller.signal,
    });
    expect(result.outcome).toBe("error");
    expect(result.error).toMatch(/null bytes/);
    expect(result.interrupted).toBe(false);
  });

  it("nor when a NUL byte is in its environment", async () => {
    const result = await runHookProcess({
      command: "exit 0",
      cwd: process.cwd(),
      input: "{}\n",
      timeoutMs: 10_000,
      maxOutputChars: 1_000,
      env: { BAD: "a\u0000b" },
    });
    expect(result.outcome).toBe("error");
    expect(result.error).toMatch(/null bytes/);
  });
});

describe("a before-hook that cannot be spawned", () => {
  it("denies the call with a clear reason, and its failed run is traced", async () => {
    const env = await start([{ tool_calls: [exec("touch made.txt", "c1")] }, { text: "done" }], {
      hooks: { before_tool: [{ name: "broken", command: BROKEN_COMMAND }] },
    });
    const session = await env.session();
    const messages = await collect(session.run("Go.", { approve: allowAll }));
    await session.dispose();

    expect(existsSync(join(env.workspaceDir, "made.txt"))).toBe(false);
    const [decision] = payloadsOf(traceRecords(session.tracePath), "approval_decision");
    expect(decision).toMatchObject({ decision: "deny", source: { kind: "hook", name: "broken" } });
    expect(String(decision?.reason)).toMatch(/^hook broken could not run: .*null bytes/);
    expect(String(decision?.reason)).not.toContain("before initialization");
    expect(payloadsOf(traceRecords(session.tracePath), "hook_result")).toEqual([
      expect.objectContaining({ hook: "broken", phase: "before_tool", outcome: "error", decision: "deny" }),
    ]);
    expect(payloadsOf(messages, "hook_result")).toHaveLength(1);
    expect(toolMessage(env, 1, "c1")).toContain("hook broken could not run");
  });
});

describe("an after-hook that cannot be spawned", () => {
  it("leaves the call closed with its output, and its failed run is traced", async () => {
    const env = await start([{ tool_calls: [exec("echo the-real-output", "c1")] }, { text: "done" }], {
      hooks: { after_tool: [{ name: "broken-after", command: BROKEN_COMMAND, show_output: true }] },
    });
    const session = await env.session();
    const messages = await collect(session.run("Go.", { approve: allowAll }));
    await session.dispose();

    const outputs = payloadsOf(messages, "tool_call_output");
    expect(outputs).toHaveLength(1);
    expect(outputs[0]).toMatchObject({ tool_call_id: "c1" });
    const stops = payloadsOf(messages, "partial_tool_call_output").filter((p) => p.event_type === "stop");
    expect(stops).toEqual([expect.objectContaining({ tool_call_id: "c1" })]);
    const read = toolMessage(env, 1, "c1");
    expect(read).toContain("the-real-output");
    expect(read).toContain("hook broken-after could not run");
    expect(payloadsOf(traceRecords(session.tracePath), "hook_result")).toEqual([
      expect.objectContaining({ hook: "broken-after", phase: "after_tool", outcome: "error" }),
    ]);
  });
});

/** A runner with a bug: its after-hooks throw instead of reporting. */
class ThrowingAfterHooks extends HookRunner {
  override async after(): Promise<never> {
    throw new Error("the after-hooks fell over");
  }
}

describe("an Environment whose after-hooks throw", () => {
  it("still closes the call with its output, and shows that the after-hooks could not run", async () => {
    const dirs = await tempDirs();
    try {
      const hooks = new ThrowingAfterHooks(new HookSet(false), {
        sessionId: "s1",
        workspaceDir: dirs.workspaceDir,
        currentDir: () => dirs.workspaceDir,
      });
      const env = makeEnvironment(dirs, [chunkTool(["the tool's own output"])], { hooks });
      // runCall checks the framing: one start, one stop, exactly one complete output, last.
      const call = await runCall(env, "test_tool");
      expect(call.complete.stop_reason).toBe("completed");
      expect(call.complete.output).toContain("the tool's own output");
      expect(call.complete.output).toContain("[after-hooks] could not run: the after-hooks fell over");
    } finally {
      await dirs.cleanup();
    }
  });
});
