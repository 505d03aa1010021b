import { tmpdir } from "node:os";
import {
  assistantText,
  partialToolCallOutput,
  subagentPointer,
  toolCall,
  toolCallOutput,
  withOrigin,
} from "@penguin/protocol";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import {
  DENIED_BY_POLICY_TEXT,
  DENIED_BY_USER_TEXT,
  INTERRUPTED_MARKER,
  NO_OUTPUT_MARKER,
  TOOL_ERROR_PREFIX,
  timeoutMarker,
  truncationMarker,
} from "../../src/environment/markers.js";
import type { ToolExecutionContext } from "../../src/environment/types.js";
import { ProcessManager } from "../../src/processes/process-manager.js";
import {
  chunkTool,
  makeEnvironment,
  quietTool,
  runCall,
  sleep,
  type TempDirs,
  tempDirs,
  testTool,
} from "./support.js";

let dirs: TempDirs;
beforeEach(async () => {
  dirs = await tempDirs();
});
afterEach(async () => {
  await dirs.cleanup();
});

/** Resolves when the signal aborts; never settles otherwise (a tool that only stops when told). */
function untilAborted(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) resolve();
    signal?.addEventListener("abort", () => resolve(), { once: true });
  });
}

describe("framing", () => {
  it("wraps a tool's deltas in start/stop and closes with one complete output carrying the same text", async () => {
    const env = makeEnvironment(dirs, [chunkTool(["hello ", "world"])]);
    const call = await runCall(env, "test_tool");
    expect(call.deltas).toEqual(["hello ", "world"]);
    expect(call.complete.output).toBe("hello world");
    expect(call.complete.stop_reason).toBe("completed");
  });

  it("substitutes [no output] when a tool produced nothing", async () => {
    const env = makeEnvironment(dirs, [chunkTool([])]);
    const call = await runCall(env, "test_tool");
    expect(call.complete.output).toBe(NO_OUTPUT_MARKER);
    expect(call.streamed).toBe(NO_OUTPUT_MARKER);
  });

  it("appends the tool's note on its own line, and [no output] before it when there was no text", async () => {
    const withText = makeEnvironment(dirs, [chunkTool(["done"], { note: "[exit code: 0]" })]);
    expect((await runCall(withText, "test_tool")).complete.output).toBe("done\n[exit code: 0]");
    const silent = makeEnvironment(dirs, [chunkTool([], { note: "[exit code: 3]" })]);
    expect((await runCall(silent, "test_tool")).complete.output).toBe(`${NO_OUTPUT_MARKER}\n[exit code: 3]`);
  });

  it("keeps the note and the images outside the truncation window", async () => {
    const image = "data:image/png;base64,AAAA";
    const env = makeEnvironment(dirs, [
      chunkTool(["x".repeat(50)], { note: "[exit code: 1]", images: [image] }, { maxOutputLength: 10 }),
    ]);
    const call = await runCall(env, "test_tool");
    const lines = call.complete.output.split("\n");
    expect(lines[0]).toBe("x".repeat(10));
    expect(lines[1]).toBe(truncationMarker(10));
    expect(lines[2]).toBe("[exit code: 1]");
    expect(call.complete.images).toEqual([image]);
    expect(call.images).toEqual([image]);
    expect(call.streamed).toBe(call.complete.output);
  });

  it("turns a throw into [tool error] <message> with stop_reason failed, after the text produced so far", async () => {
    const tool = testTool(async function* (_args, ctx) {
      yield partialToolCallOutput("delta", ctx.toolCallId, "partial work");
      throw new Error("disk on fire");
    });
    const call = await runCall(makeEnvironment(dirs, [tool]), "test_tool");
    expect(call.complete.output).toBe(`partial work\n${TOOL_ERROR_PREFIX} disk on fire`);
    expect(call.complete.stop_reason).toBe("failed");
  });

  it("closes a tool that throws before yielding anything, even synchronously", async () => {
    const tool = testTool(() => {
      throw new TypeError("not even a generator");
    });
    const call = await runCall(makeEnvironment(dirs, [tool]), "test_tool");
    expect(call.complete.output).toBe(`${TOOL_ERROR_PREFIX} not even a generator`);
    expect(call.complete.stop_reason).toBe("failed");
  });

  it("keeps a tool's self-reported stop reason when nothing outranks it", async () => {
    const env = makeEnvironment(dirs, [chunkTool(["no such file"], { stopReason: "failed" })]);
    const call = await runCall(env, "test_tool");
    expect(call.complete.stop_reason).toBe("failed");
    expect(call.complete.output).toBe("no such file");
  });

  it("passes a child session's origin-tagged messages and events through, and drops a tool's own framing", async () => {
    const child = withOrigin(assistantText("child says hi"), "child-1");
    const pointer = subagentPointer("child-1", { tool_call_id: "call_1" });
    const tool = testTool(async function* (_args, ctx) {
      yield partialToolCallOutput("start", ctx.toolCallId);
      yield pointer;
      yield child;
      yield partialToolCallOutput("delta", ctx.toolCallId, "summary");
      yield partialToolCallOutput("stop", ctx.toolCallId);
      yield toolCallOutput(ctx.toolCallId, "a second complete output must not leak", "completed");
      return {};
    });
    const call = await runCall(makeEnvironment(dirs, [tool]), "test_tool");
    expect(call.messages).toContain(child);
    expect(call.messages).toContain(pointer);
    expect(call.complete.output).toBe("summary");
  });

  it("gives the tool its context: workspace, call id, session, scratchpad, a signal and the approver", async () => {
    let seen: ToolExecutionContext | undefined;
    const approve = allowAll;
    const tool = quietTool(async (_args, ctx) => {
      seen = ctx;
      return {};
    });
    await runCall(makeEnvironment(dirs, [tool], { modelHasVision: true }), "test_tool", {}, "call_ctx", {
      approve,
    });
    expect(seen?.workspaceDir).toBe(dirs.workspaceDir);
    expect(seen?.toolCallId).toBe("call_ctx");
    expect(seen?.sessionId).toBe("s1");
    expect(seen?.scratchpadDir).toBe(dirs.scratchpadDir);
    expect(seen?.signal).toBeInstanceOf(AbortSignal);
    expect(seen?.approve).toBe(approve);
    expect(seen?.modelHasVision).toBe(true);
  });
});

describe("stop_reason priority: user interrupt > timeout > tool throw > tool self-report", () => {
  it("a timeout ends a call whose tool honours its signal, keeping the output so far", async () => {
    const tool = testTool(
      async function* (_args, ctx) {
        yield partialToolCallOutput("delta", ctx.toolCallId, "started");
        await untilAborted(ctx.signal);
        return { stopReason: "completed" as const, note: "[terminated by signal SIGTERM]" };
      },
      { timeoutMs: 50 },
    );
    const call = await runCall(makeEnvironment(dirs, [tool]), "test_tool");
    expect(call.complete.stop_reason).toBe("timeout");
    expect(call.complete.output).toBe(`started\n${timeoutMarker(50)}\n[terminated by signal SIGTERM]`);
  });

  it("a timeout ends a call whose tool ignores its signal, after the grace period", async () => {
    const tool = quietTool(
      async () => {
        await new Promise(() => {});
        return {};
      },
      { timeoutMs: 30 },
    );
    const env = makeEnvironment(dirs, [tool], { abortGraceMs: 30 });
    const call = await runCall(env, "test_tool");
    expect(call.complete.stop_reason).toBe("timeout");
    expect(call.complete.output).toBe(`${NO_OUTPUT_MARKER}\n${timeoutMarker(30)}`);
  });

  it("a throwing tool that also timed out reports timeout", async () => {
    const tool = quietTool(
      async (_args, ctx) => {
        await untilAborted(ctx.signal);
        throw new Error("aborted while writing");
      },
      { timeoutMs: 30 },
    );
    const call = await runCall(makeEnvironment(dirs, [tool]), "test_tool");
    expect(call.complete.stop_reason).toBe("timeout");
    expect(call.complete.output).toBe(`${timeoutMarker(30)}\n${TOOL_ERROR_PREFIX} aborted while writing`);
  });

  it("a user interrupt during a timeout's grace period reports aborted", async () => {
    const user = new AbortController();
    const tool = testTool(
      async function* (_args, ctx) {
        await untilAborted(ctx.signal);
        // The timeout fired; the user interrupts while the tool is still winding down.
        setTimeout(() => user.abort(), 10);
        await sleep(60);
        return { stopReason: "failed" as const };
      },
      { timeoutMs: 20 },
    );
    const call = await runCall(makeEnvironment(dirs, [tool]), "test_tool", {}, "call_1", {
      signal: user.signal,
    });
    expect(call.complete.stop_reason).toBe("aborted");
    expect(call.complete.output).toContain(INTERRUPTED_MARKER);
  });

  it("a user interrupt outranks a throw and a self-reported failure", async () => {
    const user = new AbortController();
    const tool = testTool(async function* (_args, ctx) {
      yield partialToolCallOutput("delta", ctx.toolCallId, "working");
      user.abort();
      await untilAborted(ctx.signal);
      throw new Error("stopped");
    });
    const call = await runCall(makeEnvironment(dirs, [tool]), "test_tool", {}, "call_1", {
      signal: user.signal,
    });
    expect(call.complete.stop_reason).toBe("aborted");
    expect(call.complete.output).toBe(`working\n${INTERRUPTED_MARKER}\n${TOOL_ERROR_PREFIX} stopped`);
  });

  it("an already-aborted signal closes the call without running the tool", async () => {
    let ran = false;
    const tool = quietTool(async () => {
      ran = true;
      return {};
    });
    const user = new AbortController();
    user.abort();
    const call = await runCall(makeEnvironment(dirs, [tool]), "test_tool", {}, "call_1", {
      signal: user.signal,
    });
    expect(ran).toBe(false);
    expect(call.complete.stop_reason).toBe("aborted");
  });

  it("timeoutMs <= 0 disables the timeout", async () => {
    const tool = testTool(
      async function* (_args, ctx) {
        await sleep(40);
        yield partialToolCallOutput("delta", ctx.toolCallId, "slow but fine");
        return {};
      },
      { timeoutMs: 0 },
    );
    const call = await runCall(makeEnvironment(dirs, [tool]), "test_tool");
    expect(call.complete.stop_reason).toBe("completed");
    expect(call.complete.output).toBe("slow but fine");
  });
});

describe("bad calls become failed outputs the model can act on", () => {
  const fileTool = quietTool(async () => ({}), {
    name: "read_thing",
    parameters: {
      type: "object",
      properties: {
        file_path: { type: "string" },
        offset: { type: "integer", minimum: 1 },
        mode: { enum: ["fast", "slow"] },
      },
      required: ["file_path"],
      additionalProperties: false,
    },
  });

  it("an unknown tool names the tools that exist", async () => {
    const env = makeEnvironment(dirs, [fileTool]);
    const call = await runCall(env, "rm_rf");
    expect(call.complete.stop_reason).toBe("failed");
    expect(call.complete.output).toBe('Unknown tool "rm_rf". Available tools: read_thing.');
  });

  it("arguments that are not JSON say so, with the parser's reason", async () => {
    const call = await runCall(makeEnvironment(dirs, [fileTool]), "read_thing", '{"file_path": "a.txt"');
    expect(call.complete.stop_reason).toBe("failed");
    expect(call.complete.output).toMatch(
      /^Invalid arguments for read_thing: the arguments are not valid JSON \(.+\)/,
    );
  });

  it("arguments that are JSON but not an object say what they were", async () => {
    const call = await runCall(makeEnvironment(dirs, [fileTool]), "read_thing", "[1, 2]");
    expect(call.complete.output).toBe(
      "Invalid arguments for read_thing: the arguments must be a JSON object, got an array.",
    );
  });

  it("schema violations name every wrong argument and what was expected", async () => {
    const call = await runCall(makeEnvironment(dirs, [fileTool]), "read_thing", {
      offset: "5",
      mode: "turbo",
      colour: "red",
    });
    expect(call.complete.stop_reason).toBe("failed");
    const text = call.complete.output;
    expect(text).toContain('missing required argument "file_path" (string)');
    expect(text).toContain('argument "offset" must be integer, got string "5"');
    expect(text).toContain('argument "mode" must be one of "fast", "slow", got "turbo"');
    expect(text).toContain('unexpected argument "colour"; allowed: file_path, offset, mode');
  });

  it("a value below the minimum names the limit and the value", async () => {
    const call = await runCall(makeEnvironment(dirs, [fileTool]), "read_thing", {
      file_path: "a",
      offset: 0,
    });
    expect(call.complete.output).toContain('argument "offset" must be >= 1, got 0');
  });

  it('empty arguments count as {} (some models send "" for a call without arguments)', async () => {
    const call = await runCall(makeEnvironment(dirs, [fileTool]), "read_thing", "");
    expect(call.complete.output).toContain('missing required argument "file_path"');
  });

  it("a tool whose configured schema does not compile fails its calls with the reason", async () => {
    const broken = quietTool(async () => ({}), {
      name: "broken",
      parameters: { type: "object", properties: { a: { type: "no-such-type" } } },
    });
    const call = await runCall(makeEnvironment(dirs, [broken]), "broken", { a: 1 });
    expect(call.complete.stop_reason).toBe("failed");
    expect(call.complete.output).toMatch(/^The broken tool cannot run: its parameters schema .* is invalid/);
  });

  it("the reason a configured schema does not compile names where in the schema the fault is", async () => {
    const broken = quietTool(async () => ({}), {
      name: "broken",
      parameters: {
        type: "object",
        properties: { a: { type: "object", properties: { b: { minimum: "one" } } } },
      },
    });
    const call = await runCall(makeEnvironment(dirs, [broken]), "broken", { a: { b: 2 } });
    expect(call.complete.stop_reason).toBe("failed");
    expect(call.complete.output).toBe(
      "The broken tool cannot run: its parameters schema in the agent's configuration is invalid (schema/properties/a/properties/b/minimum must be number).",
    );
  });

  it("a schema that compiles but refuses every value is reported as broken, not blamed on the arguments", async () => {
    let ran = false;
    const broken = quietTool(
      async () => {
        ran = true;
        return {};
      },
      {
        name: "broken",
        parameters: { type: "object", properties: { a: { type: "string", maxLength: -1 } } },
      },
    );
    const env = makeEnvironment(dirs, [broken]);
    for (const args of [{ a: "x" }, { a: "" }]) {
      const call = await runCall(env, "broken", args);
      expect(call.complete.stop_reason).toBe("failed");
      expect(call.complete.output).toBe(
        "The broken tool cannot run: its parameters schema in the agent's configuration is invalid (schema/properties/a/maxLength must be >= 0).",
      );
    }
    expect(ran).toBe(false);
  });
});

describe("Environment API", () => {
  it("toolSpecs offers name, description, parameters and permission of each tool", () => {
    const env = makeEnvironment(dirs, [chunkTool([], {}, { name: "a", permission: "rw" })]);
    expect(env.toolSpecs()).toEqual([
      {
        name: "a",
        description: "A tool for tests.",
        parameters: { type: "object", properties: {}, additionalProperties: true },
        permission: "rw",
      },
    ]);
  });

  it("deniedOutput is a synthetic aborted output: exactly 'Tool call denied by user.' for a user deny", () => {
    const env = makeEnvironment(dirs, []);
    const call = toolCall("exec_command", { cmd: "rm -rf /" }, "call_9");
    const denied = env.deniedOutput(call);
    expect(denied.payload).toMatchObject({
      type: "tool_call_output",
      output: DENIED_BY_USER_TEXT,
      tool_call_id: "call_9",
      stop_reason: "aborted",
    });
    expect(DENIED_BY_USER_TEXT).toBe("Tool call denied by user.");
    expect(env.deniedOutput(call, "policy").payload.output).toBe(DENIED_BY_POLICY_TEXT);
  });

  it("dispose ends the session's command processes", async () => {
    const processes = new ProcessManager();
    const env = makeEnvironment(dirs, [], { processes });
    const started = processes.start({ cmd: "sleep 30", cwd: tmpdir() });
    expect(started.ok).toBe(true);
    expect(processes.liveIds()).toHaveLength(1);
    await env.dispose();
    expect(processes.liveIds()).toEqual([]);
  });
});

describe("the abort reason tells a tool why it was stopped", () => {
  it("is a TimeoutError for the timeout and an AbortError for the user's interrupt", async () => {
    const reasons: unknown[] = [];
    const tool = quietTool(
      async (_args, ctx) => {
        await untilAborted(ctx.signal);
        reasons.push(ctx.signal?.reason);
        return {};
      },
      { timeoutMs: 20 },
    );
    const env = makeEnvironment(dirs, [tool]);
    await runCall(env, "test_tool");
    const user = new AbortController();
    setTimeout(() => user.abort(), 5);
    await runCall(
      makeEnvironment(dirs, [{ ...tool, definition: { ...tool.definition, timeoutMs: 0 } }]),
      "test_tool",
      {},
      "c2",
      {
        signal: user.signal,
      },
    );
    expect(reasons.map((r) => (r as DOMException).name)).toEqual(["TimeoutError", "AbortError"]);
  });
});
