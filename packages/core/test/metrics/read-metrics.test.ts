import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { collect, payloadsOf, stack, toolMessage } from "../hooks/support.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";

// read_metrics reads the session's own trace: the calls and requests made before it are its rows.
// Through the SDK, against fake-llm over HTTP.

const start = cleanedUpAfterEach(stack);
const EXTENDED = { tools: { preset: "extended" as const } };

const exec = (id: string, cmd: string) => ({
  id,
  name: "exec_command",
  arguments: { description: "wait", cmd },
});
const metrics = (id: string, summary: string) => ({ id, name: "read_metrics", arguments: { summary } });

describe("read_metrics in a session", () => {
  it("lists the tools and model requests the session made, slowest first", async () => {
    const env = await start(
      [
        { tool_calls: [exec("e1", "sleep 0.3"), exec("e2", "true")] },
        { tool_calls: [{ id: "r1", name: "read_file", arguments: { file_path: "missing.txt" } }] },
        { tool_calls: [metrics("m1", "tools"), metrics("m2", "models"), metrics("m3", "turns")] },
        { text: "done" },
      ],
      EXTENDED,
    );
    const session = await env.session();
    const messages = await collect(session.run("Measure yourself.", { approve: allowAll }));
    await session.dispose();
    const outputs = payloadsOf(messages, "tool_call_output");
    expect(outputs.find((p) => p.tool_call_id === "m1")?.stop_reason).toBe("completed");

    const tools = toolMessage(env, 3, "m1").split("\n");
    expect(tools[0]).toBe("tools, slowest first:");
    expect(tools[1]).toMatch(/^name\s+count\s+total\s+p50\s+p95\s+max\s+errors$/);
    // exec_command ran twice (one of them 0.3 s): it is the slowest; read_file failed once.
    expect(tools[2]).toMatch(/^exec_command\s+2\s/);
    expect(tools[3]).toMatch(/^read_file\s+1\s.*\s1$/);

    const models = toolMessage(env, 3, "m2");
    // The request that called read_metrics is still open (calls run as they stream): two ended.
    expect(models).toMatch(/fake\/fake-model\s+2\s/);
    expect(models).toContain("tokens");
    const turns = toolMessage(env, 3, "m3");
    expect(turns).toContain("task 1 turn 1");
    expect(turns).toContain("task 1 turn 2");
  });

  it("refuses a summary it does not know, naming the ones it has", async () => {
    const env = await start([{ tool_calls: [metrics("m1", "everything")] }, { text: "done" }], EXTENDED);
    const session = await env.session();
    await collect(session.run("Measure.", { approve: allowAll }));
    await session.dispose();
    expect(toolMessage(env, 1, "m1")).toContain("summary");
    expect(toolMessage(env, 1, "m1")).toContain("tools");
  });
});
