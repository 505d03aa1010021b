import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { AcpChild } from "./acp-client.js";
import { fakeOpenAiPerTest, tempDir } from "./helpers.js";

// Plan mode over ACP: a write is refused without asking, the model's checklist arrives as a
// `plan` update, and approving the proposed plan switches the mode and carries it out in the
// same prompt turn.

const serve = fakeOpenAiPerTest("sk-test-penguin-acp-plan-0123456789");
let running: AcpChild | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

function startAcp(env: Record<string, string>): AcpChild {
  running = new AcpChild(["--model", "openai/fake-model"], { ...env, HOME: tempDir("home") });
  return running;
}

const writeCall = (file: string, id: string) => ({
  tool_calls: [{ id, name: "write_file", arguments: { file_path: file, content: "hello\n" } }],
});

const PLAN_STEPS = {
  tool_calls: [
    {
      id: "p1",
      name: "update_plan",
      arguments: {
        steps: [
          { step: "Look around", status: "done" },
          { step: "Write notes.txt", status: "pending" },
        ],
      },
    },
  ],
};

describe("penguin acp plan mode", () => {
  test("refuses the write, sends the plan, and an approval runs the plan in allow-all", async () => {
    const workspace = tempDir("ws");
    const target = join(workspace, "notes.txt");
    const { env, llm } = await serve([]);
    llm.setScript([
      PLAN_STEPS,
      writeCall(target, "w1"),
      { text: "The plan: write notes.txt." },
      writeCall(target, "w2"),
      { text: "Written." },
    ]);
    const acp = startAcp(env);
    acp.onPermission((request) => (request.toolCall.kind === "switch_mode" ? "allow_always" : "reject_once"));
    await acp.initialize();
    const { sessionId } = await acp.agent.request("session/new", { cwd: workspace, mcpServers: [] });
    await acp.agent.request("session/set_mode", { sessionId, modeId: "plan" });
    const result = await acp.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "Add notes" }],
    });
    expect(result.stopReason).toBe("end_turn");
    const updates = acp.updatesOf(sessionId);

    const plan = updates.find((u) => u.sessionUpdate === "plan");
    expect(plan).toEqual({
      sessionUpdate: "plan",
      entries: [
        { content: "Look around", priority: "medium", status: "completed" },
        { content: "Write notes.txt", priority: "medium", status: "pending" },
      ],
    });
    // The write in plan mode was refused without asking; the only question was the plan's.
    expect(acp.permissionRequests.map((r) => r.toolCall.kind)).toEqual(["switch_mode"]);
    const refused = updates.find(
      (u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "w1" && u.status === "failed",
    );
    expect(JSON.stringify(refused)).toContain("plan mode: only reading tools run");
    expect(JSON.stringify(acp.permissionRequests[0]?.toolCall.content)).toContain(
      "The plan: write notes.txt.",
    );

    // Approved: the mode switched, and the plan ran in the same turn with the write allowed.
    const modeUpdate = updates.findIndex((u) => u.sessionUpdate === "current_mode_update");
    expect(updates[modeUpdate]).toMatchObject({ currentModeId: "allow-all" });
    expect(readFileSync(target, "utf8")).toBe("hello\n");
    const written = updates.findIndex(
      (u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "w2" && u.status === "completed",
    );
    expect(written).toBeGreaterThan(modeUpdate);
    expect(acp.nonProtocolLines()).toEqual([]);
  });

  test("keep planning: nothing runs and the session stays in plan mode", async () => {
    const workspace = tempDir("ws");
    const target = join(workspace, "notes.txt");
    const { env, llm } = await serve([]);
    llm.setScript([
      { text: "The plan: write notes.txt." },
      writeCall(target, "w2"),
      { text: "Refused again." },
    ]);
    const acp = startAcp(env);
    acp.onPermission(() => "reject_once");
    await acp.initialize();
    const { sessionId } = await acp.agent.request("session/new", { cwd: workspace, mcpServers: [] });
    await acp.agent.request("session/set_mode", { sessionId, modeId: "plan" });
    await acp.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "Add notes" }] });
    expect(acp.permissionRequests).toHaveLength(1);
    expect(acp.updatesOf(sessionId).some((u) => u.sessionUpdate === "current_mode_update")).toBe(false);
    expect(llm.requests).toHaveLength(1);
    // The next prompt (an adjustment) is still in plan mode: its write is refused.
    await acp.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "Do it anyway" }],
    });
    expect(existsSync(target)).toBe(false);
  });
});
