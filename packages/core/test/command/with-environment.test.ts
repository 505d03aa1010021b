import { mkdirSync } from "node:fs";
import path from "node:path";
import { type OmniMessage, type ToolCallOutputPayload, toolCall } from "@penguin/protocol";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Environment } from "../../src/environment/index.js";
import { ProcessManager } from "../../src/tools/command/index.js";
import { execTool, groupMembers, inputTool, tempWorkspace, waitUntil } from "./helpers.js";

// The command tools inside the real Environment: what the model ends up reading.

let processes: ProcessManager;
let workspace: { dir: string; cleanup: () => void };

beforeEach(() => {
  processes = new ProcessManager();
  workspace = tempWorkspace();
});

afterEach(async () => {
  await processes.disposeAll();
  workspace.cleanup();
});

function environment(execTimeoutMs = 120_000): Environment {
  const scratchpadDir = path.join(workspace.dir, ".scratchpad");
  mkdirSync(scratchpadDir, { recursive: true });
  return new Environment({
    tools: [execTool({ timeoutMs: execTimeoutMs }), inputTool()],
    sessionId: "s1",
    workspaceDir: workspace.dir,
    scratchpadDir,
    processes,
    warn: () => {},
  });
}

let counter = 0;
async function call(
  env: Environment,
  name: string,
  args: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<ToolCallOutputPayload> {
  counter += 1;
  let final: ToolCallOutputPayload | undefined;
  for await (const message of env.executeTool(toolCall(name, { description: "t", ...args }, `c${counter}`), {
    signal,
  })) {
    if ((message as OmniMessage).payload.type === "tool_call_output")
      final = message.payload as ToolCallOutputPayload;
  }
  if (!final) throw new Error("no tool_call_output");
  return final;
}

describe("exec_command and input_command in the Environment", () => {
  it("a finished command reads as its output followed by the exit code", async () => {
    const out = await call(environment(), "exec_command", { cmd: "echo hi; exit 7" });
    expect(out.stop_reason).toBe("completed");
    expect(out.output).toContain("hi\n");
    expect(out.output).toContain("[exit code: 7]");
  });

  it("a backgrounded command gives a process_id that input_command can drive to its end", async () => {
    const env = environment();
    const first = await call(env, "exec_command", { cmd: "read -r x; echo got $x", yield_time_ms: 250 });
    expect(first.output).toContain("process_id=cmd_1");
    const fed = await call(env, "input_command", {
      process_id: "cmd_1",
      chars: "it\n",
      yield_time_ms: 10_000,
    });
    expect(fed.output).toContain("got it\n");
    expect(fed.output).toContain("[exit code: 0]");
  });

  it("a tool-call timeout ends the call, not the command: it keeps running with its process_id", async () => {
    // A 100 ms timeout fires before the 250 ms minimum window.
    const out = await call(environment(100), "exec_command", { cmd: "sleep 1000" });
    expect(out.stop_reason).toBe("timeout");
    expect(out.output).toContain("process_id=cmd_1");
    expect(processes.get("cmd_1")?.status).toBe("running");
  });

  it("a user interrupt ends the foreground command's process group", async () => {
    const env = environment();
    const controller = new AbortController();
    const pending = call(env, "exec_command", { cmd: "sleep 1000" }, controller.signal);
    await waitUntil(() => processes.get("cmd_1")?.pid !== undefined, "the command to start");
    const pgid = processes.get("cmd_1")?.pid as number;
    await waitUntil(() => groupMembers(pgid).length > 0, "the group to run");
    controller.abort();
    const out = await pending;
    expect(out.stop_reason).toBe("aborted");
    await waitUntil(() => groupMembers(pgid).length === 0, "the group to be gone");
  });

  it("100 MB of output reaches the model truncated, with the exit code kept", async () => {
    const out = await call(environment(), "exec_command", {
      cmd: "head -c 100000000 /dev/zero | tr '\\0' 'a'",
    });
    expect(out.stop_reason).toBe("completed");
    expect(out.output.length).toBeLessThan(20_000);
    expect(out.output).toContain("[exit code: 0]");
  });
});
