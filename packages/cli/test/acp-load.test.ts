import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { AcpChild } from "./acp-client.js";
import { fakeOpenAiPerTest, tempDir } from "./helpers.js";

const API_KEY = "sk-test-penguin-acp-load-0123456789";
const serve = fakeOpenAiPerTest(API_KEY);
const children: AcpChild[] = [];
afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => child.close()));
});

function startAcp(env: Record<string, string>): AcpChild {
  const child = new AcpChild(["--model", "openai/fake-model", "--approve", "allow-all"], env);
  children.push(child);
  return child;
}

test("session/load in a new process replays the history as updates, and the session goes on", async () => {
  const workspace = tempDir("ws");
  const { env, llm } = await serve([
    { tool_calls: [{ name: "write_file", arguments: { file_path: "notes.txt", content: "hi\n" } }] },
    { text: "Wrote the notes." },
    { text: "Still remembered." },
  ]);
  const fullEnv = { ...env, HOME: tempDir("home") };

  const first = startAcp(fullEnv);
  const init = await first.initialize();
  expect(init.agentCapabilities?.loadSession).toBe(true);
  const { sessionId } = await first.agent.request("session/new", { cwd: workspace, mcpServers: [] });
  await first.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write notes" }] });
  await first.close();

  const second = startAcp(fullEnv);
  await second.initialize();
  const loaded = await second.agent.request("session/load", { sessionId, cwd: workspace, mcpServers: [] });
  expect(loaded.modes?.currentModeId).toBe("allow-all");
  const replayed = second.updatesOf(sessionId);
  expect(replayed.map((u) => u.sessionUpdate)).toEqual([
    "user_message_chunk",
    "tool_call",
    "tool_call_update",
    "tool_call_update",
    "agent_message_chunk",
  ]);
  expect(replayed[0]).toMatchObject({ content: { type: "text", text: "write notes" } });
  expect(replayed[1]).toMatchObject({
    kind: "edit",
    status: "pending",
    locations: [{ path: join(workspace, "notes.txt") }],
  });
  expect(replayed.at(-2)).toMatchObject({ status: "completed" });
  expect(replayed.at(-1)).toMatchObject({ content: { type: "text", text: "Wrote the notes." } });

  const next = await second.agent.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: "remember?" }],
  });
  expect(next.stopReason).toBe("end_turn");
  // The model got the earlier conversation with the new prompt.
  const body = JSON.stringify(llm.requests.at(-1)?.body);
  expect(body).toContain("write notes");
  expect(body).toContain("remember?");

  await expect(
    second.agent.request("session/load", { sessionId: "no-such-session", cwd: workspace, mcpServers: [] }),
  ).rejects.toThrow(/cannot load session no-such-session/);
  expect(second.nonProtocolLines()).toEqual([]);
});
