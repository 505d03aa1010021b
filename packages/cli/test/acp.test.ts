import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, test } from "vitest";
import { AcpChild } from "./acp-client.js";
import { fakeOpenAiPerTest, tempDir } from "./helpers.js";
import { processesRunning } from "./pty.js";

const API_KEY = "sk-test-penguin-acp-0123456789abcdef";
const MODEL = ["--model", "openai/fake-model"];
/** A duration no other process on the machine uses, so the leftover check finds only ours. */
const SLEEP_SECONDS = "30.4321";

const serve = fakeOpenAiPerTest(API_KEY);
let running: AcpChild | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function startAcp(env: Record<string, string>, args: string[] = []): Promise<AcpChild> {
  running = new AcpChild([...MODEL, ...args], { ...env, HOME: tempDir("home") });
  return running;
}

type ToolCallUpdate = Extract<SessionUpdate, { sessionUpdate: "tool_call" | "tool_call_update" }>;
function callUpdates(updates: SessionUpdate[], toolCallId: string): ToolCallUpdate[] {
  return updates.filter(
    (u): u is ToolCallUpdate =>
      (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") &&
      u.toolCallId === toolCallId,
  );
}

/** The ids Penguin gives the calls of a model turn, in order (the announced `tool_call`s). */
function announcedCalls(updates: SessionUpdate[]) {
  return updates.filter((u) => u.sessionUpdate === "tool_call");
}

describe("penguin acp", () => {
  test("initialize advertises the protocol version and no more than Penguin does", async () => {
    const { env } = await serve([]);
    const acp = await startAcp(env);
    const init = await acp.initialize();
    expect(init.protocolVersion).toBe(1);
    expect(init.agentInfo?.name).toBe("penguin");
    // The one-file build's version constant (src/version.ts) is the package's.
    const packageJson = JSON.parse(readFileSync(join(import.meta.dirname, "../package.json"), "utf8"));
    expect(init.agentInfo?.version).toBe(packageJson.version);
    expect(init.agentCapabilities?.loadSession).toBe(true);
    expect(init.agentCapabilities?.promptCapabilities).toEqual({
      image: true,
      audio: false,
      embeddedContext: true,
    });
    expect(acp.nonProtocolLines()).toEqual([]);
  });

  for (const answer of ["allow", "reject"] as const) {
    test(`a write and a command asked with session/request_permission, answered ${answer}`, async () => {
      const workspace = tempDir("ws");
      const { env, llm } = await serve([
        {
          tool_calls: [
            {
              name: "write_file",
              arguments: { file_path: "notes.txt", content: "hello\n" },
            },
            {
              name: "exec_command",
              arguments: { description: "Mark that it ran", cmd: "touch ran.txt" },
            },
          ],
        },
        { text: "All done." },
      ]);
      const acp = await startAcp(env, ["--approve", "always-ask"]);
      acp.onPermission(() => (answer === "allow" ? "allow_once" : "reject_once"));
      await acp.initialize();
      const { sessionId } = await acp.agent.request("session/new", { cwd: workspace, mcpServers: [] });
      const result = await acp.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "write the notes" }],
      });
      expect(result.stopReason).toBe("end_turn");

      // Both calls were asked about, with the four answers and the call's title (its description,
      // else what it does) and kind.
      const titles = acp.permissionRequests.map((r) => r.toolCall.title);
      expect(titles[0]).toContain("notes.txt");
      expect(titles[1]).toBe("Mark that it ran");
      expect(acp.permissionRequests[0].toolCall.kind).toBe("edit");
      expect(acp.permissionRequests[0].toolCall.locations).toEqual([{ path: join(workspace, "notes.txt") }]);
      expect(acp.permissionRequests[1].toolCall.kind).toBe("execute");
      expect(acp.permissionRequests[0].options.map((o) => o.kind)).toEqual([
        "allow_once",
        "allow_always",
        "reject_once",
        "reject_always",
      ]);
      expect(existsSync(join(workspace, "notes.txt"))).toBe(answer === "allow");
      expect(existsSync(join(workspace, "ran.txt"))).toBe(answer === "allow");

      const updates = acp.updatesOf(sessionId);
      const [write, command] = announcedCalls(updates);
      expect(write).toMatchObject({ title: titles[0], kind: "edit", status: "pending" });
      expect(write.content).toEqual([
        { type: "diff", path: join(workspace, "notes.txt"), oldText: null, newText: "hello\n" },
      ]);
      const writeStatuses = callUpdates(updates, write.toolCallId).map((u) => u.status);
      const commandStatuses = callUpdates(updates, command.toolCallId).map((u) => u.status);
      const finalStatuses =
        answer === "allow" ? ["pending", "in_progress", "completed"] : ["pending", "failed"];
      expect(writeStatuses).toEqual(finalStatuses);
      expect(commandStatuses).toEqual(finalStatuses);
      expect(updates).toContainEqual({
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: "All done." },
      });
      // The model was told what happened to its calls.
      const lastRequest = JSON.stringify(llm.requests.at(-1)?.body);
      if (answer === "reject") expect(lastRequest).toContain("deny");
      expect(acp.nonProtocolLines()).toEqual([]);
    });
  }

  test("an edit's update carries the whole-file diff, and allow always is not asked again", async () => {
    const workspace = tempDir("ws");
    writeFileSync(join(workspace, "app.txt"), "one\ntwo\nthree\n");
    const edit = (from: string, to: string) => ({
      name: "edit_file",
      arguments: { file_path: "app.txt", old_string: from, new_string: to },
    });
    const { env } = await serve([
      {
        thinking: "Let me look at the file first.",
        tool_calls: [{ name: "read_file", arguments: { file_path: "app.txt" } }],
      },
      { tool_calls: [edit("two", "TWO")] },
      { tool_calls: [edit("three", "THREE")] },
      { text: "Edited." },
    ]);
    const acp = await startAcp(env, ["--approve", "read-only"]);
    acp.onPermission(() => "allow_always");
    await acp.initialize();
    const { sessionId } = await acp.agent.request("session/new", { cwd: workspace, mcpServers: [] });
    const result = await acp.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "edit" }],
    });
    expect(result.stopReason).toBe("end_turn");
    expect(readFileSync(join(workspace, "app.txt"), "utf8")).toBe("one\nTWO\nTHREE\n");
    // read-only reads without asking; the first edit is asked; "always" covers the second.
    expect(acp.permissionRequests).toHaveLength(1);
    const updates = acp.updatesOf(sessionId);
    // The model's thinking streams as thought chunks.
    const thought = updates
      .map((u) =>
        u.sessionUpdate === "agent_thought_chunk" && u.content.type === "text" ? u.content.text : "",
      )
      .join("");
    expect(thought).toBe("Let me look at the file first.");
    const [read, first] = announcedCalls(updates);
    expect(read).toMatchObject({ kind: "read", locations: [{ path: join(workspace, "app.txt") }] });
    const done = callUpdates(updates, first.toolCallId).at(-1);
    expect(done?.status).toBe("completed");
    expect(done?.content).toContainEqual({
      type: "diff",
      path: join(workspace, "app.txt"),
      oldText: "one\ntwo\nthree\n",
      newText: "one\nTWO\nthree\n",
    });
  });

  test("session/cancel during a command: the prompt answers cancelled and the command is gone; a prompt meanwhile is refused", async () => {
    const workspace = tempDir("ws");
    const { env } = await serve([
      {
        tool_calls: [
          {
            name: "exec_command",
            arguments: { description: "Wait a long time", cmd: `sleep ${SLEEP_SECONDS}` },
          },
        ],
      },
      { text: "Back again." },
    ]);
    const acp = await startAcp(env, ["--approve", "allow-all"]);
    await acp.initialize();
    const { sessionId } = await acp.agent.request("session/new", { cwd: workspace, mcpServers: [] });
    const prompt = acp.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "wait" }],
    });
    for (let i = 0; i < 200 && (await processesRunning("sleep", SLEEP_SECONDS)).length === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await processesRunning("sleep", SLEEP_SECONDS)).not.toHaveLength(0);

    await expect(
      acp.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "again" }] }),
    ).rejects.toThrow(/a prompt is already running in this session/);

    await acp.agent.notify("session/cancel", { sessionId });
    expect((await prompt).stopReason).toBe("cancelled");
    expect(await processesRunning("sleep", SLEEP_SECONDS)).toEqual([]);

    // The session goes on serving: the next prompt runs.
    const next = await acp.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "go on" }],
    });
    expect(next.stopReason).toBe("end_turn");
    expect(acp.updatesOf(sessionId)).toContainEqual({
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: "Back again." },
    });
    expect(acp.nonProtocolLines()).toEqual([]);
  });

  test("session/cancel while a permission request waits: the request is cancelled, the call denied, the prompt cancelled", async () => {
    const workspace = tempDir("ws");
    const { env } = await serve([
      {
        tool_calls: [
          { name: "exec_command", arguments: { description: "Make a file", cmd: "touch made.txt" } },
        ],
      },
      { text: "Next time." },
    ]);
    const acp = await startAcp(env, ["--approve", "always-ask"]);
    acp.onPermission(() => "wait");
    await acp.initialize();
    const { sessionId } = await acp.agent.request("session/new", { cwd: workspace, mcpServers: [] });
    const prompt = acp.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "make" }],
    });
    for (let i = 0; i < 200 && acp.permissionRequests.length === 0; i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(acp.permissionRequests).toHaveLength(1);
    await acp.agent.notify("session/cancel", { sessionId });
    expect((await prompt).stopReason).toBe("cancelled");
    expect(acp.cancelledRequests).toHaveLength(1);
    expect(existsSync(join(workspace, "made.txt"))).toBe(false);
  });

  test("session modes are Penguin's approval modes: set_mode to deny-all refuses calls without asking", async () => {
    const workspace = tempDir("ws");
    const { env } = await serve([
      {
        tool_calls: [
          { name: "exec_command", arguments: { description: "Make a file", cmd: "touch made.txt" } },
        ],
      },
      { text: "Refused." },
    ]);
    const acp = await startAcp(env, ["--approve", "always-ask"]);
    acp.onPermission(() => "allow_once");
    await acp.initialize();
    const created = await acp.agent.request("session/new", { cwd: workspace, mcpServers: [] });
    expect(created.modes?.currentModeId).toBe("always-ask");
    expect(created.modes?.availableModes.map((m) => m.id).sort()).toEqual([
      "allow-all",
      "always-ask",
      "deny-all",
      "plan",
      "read-only",
    ]);
    const { sessionId } = created;
    await expect(acp.agent.request("session/set_mode", { sessionId, modeId: "yolo" })).rejects.toThrow(
      /unknown mode "yolo"/,
    );
    await acp.agent.request("session/set_mode", { sessionId, modeId: "deny-all" });
    const result = await acp.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "make" }],
    });
    expect(result.stopReason).toBe("end_turn");
    expect(acp.permissionRequests).toEqual([]);
    expect(existsSync(join(workspace, "made.txt"))).toBe(false);
    const [call] = announcedCalls(acp.updatesOf(sessionId));
    expect(callUpdates(acp.updatesOf(sessionId), call.toolCallId).at(-1)?.status).toBe("failed");
  });

  test("an unknown session id and a missing workspace are answered with errors that say so", async () => {
    const { env } = await serve([]);
    const acp = await startAcp(env);
    await acp.initialize();
    await expect(
      acp.agent.request("session/prompt", {
        sessionId: "no-such-session",
        prompt: [{ type: "text", text: "hi" }],
      }),
    ).rejects.toThrow(/no session no-such-session/);
    await expect(
      acp.agent.request("session/new", { cwd: join(tempDir("ws"), "missing"), mcpServers: [] }),
    ).rejects.toThrow(/is not an existing folder/);
    // Still serving.
    const { sessionId } = await acp.agent.request("session/new", { cwd: tempDir("ws"), mcpServers: [] });
    expect(sessionId).toMatch(/\S/);
  });
});
