import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, test } from "vitest";
import { AcpChild } from "./acp-client.js";
import { fakeOpenAiPerTest, tempDir } from "./helpers.js";

// Issue #20: when the editor offers fs/read_text_file and fs/write_text_file, the file tools go
// through it. The test editor keeps buffers that differ from the disk, as unsaved edits do.

const API_KEY = "sk-test-penguin-acp-files-0123456789";
const serve = fakeOpenAiPerTest(API_KEY);
const BOTH = { readTextFile: true, writeTextFile: true };

let running: AcpChild | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

/** `penguin acp` allowed to run everything; `config`: the default agent's system_config.yaml. */
function startAcp(env: Record<string, string>, config?: string): AcpChild {
  if (config !== undefined) {
    const dir = join(env.PENGUIN_HOME!, "agents", "default");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "system_config.yaml"), config);
  }
  running = new AcpChild(["--model", "openai/fake-model", "--approve", "allow-all"], {
    ...env,
    HOME: tempDir("home"),
  });
  return running;
}

async function promptOnce(acp: AcpChild, workspace: string, fs?: typeof BOTH) {
  await acp.initialize(fs);
  const { sessionId } = await acp.agent.request("session/new", { cwd: workspace, mcpServers: [] });
  const result = await acp.agent.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: "work on notes.txt" }],
  });
  return { sessionId, result, updates: acp.updatesOf(sessionId) };
}

type ToolCallUpdate = Extract<SessionUpdate, { sessionUpdate: "tool_call_update" }>;
/** The last update of each call, in the order the calls were announced. */
function finishedCalls(updates: SessionUpdate[]): ToolCallUpdate[] {
  const ids = updates.flatMap((u) => (u.sessionUpdate === "tool_call" ? [u.toolCallId] : []));
  return ids.map(
    (id) =>
      updates
        .filter((u): u is ToolCallUpdate => u.sessionUpdate === "tool_call_update" && u.toolCallId === id)
        .at(-1)!,
  );
}

function outputOf(update: ToolCallUpdate): string {
  return (update.content ?? [])
    .map((c) => (c.type === "content" && c.content.type === "text" ? c.content.text : ""))
    .join("");
}

const read = { name: "read_file", arguments: { file_path: "notes.txt" } };
const edit = (from: string, to: string) => ({
  name: "edit_file",
  arguments: { file_path: "notes.txt", old_string: from, new_string: to },
});

describe("penguin acp: files through the editor", () => {
  test("the model reads the editor's buffer and its edit goes to the editor, with a diff; the disk is untouched", async () => {
    const workspace = tempDir("ws");
    const notes = join(workspace, "notes.txt");
    writeFileSync(notes, "saved line\n");
    const { env, llm } = await serve([
      { tool_calls: [read] },
      { tool_calls: [edit("unsaved line", "edited line")] },
      { text: "Edited." },
    ]);
    const acp = startAcp(env);
    acp.buffers.set(notes, "unsaved line\n");
    const { result, updates } = await promptOnce(acp, workspace, BOTH);
    expect(result.stopReason).toBe("end_turn");

    const afterRead = JSON.stringify(llm.requests[1]?.body);
    expect(afterRead).toContain("unsaved line");
    expect(afterRead).not.toContain("saved line\\n");
    expect(acp.fileRequests).toContainEqual({ method: "write", path: notes });
    expect(acp.buffers.get(notes)).toBe("edited line\n");
    expect(readFileSync(notes, "utf8")).toBe("saved line\n");

    const [, edited] = finishedCalls(updates);
    expect(edited?.status).toBe("completed");
    expect(edited?.content).toContainEqual({
      type: "diff",
      path: notes,
      oldText: "unsaved line\n",
      newText: "edited line\n",
    });
    expect(outputOf(edited!)).toContain("-unsaved line\n+edited line");
    expect(acp.nonProtocolLines()).toEqual([]);
  });

  test("the write guard holds: an edit of a buffer changed since the read is refused, nothing written", async () => {
    const workspace = tempDir("ws");
    const notes = join(workspace, "notes.txt");
    writeFileSync(notes, "x = 1\n");
    const { env } = await serve([
      { tool_calls: [read] },
      { tool_calls: [edit("x = 1", "x = 2")] },
      { text: "Stopped." },
    ]);
    const acp = startAcp(env, "tools:\n  writeGuard: true\n");
    acp.buffers.set(notes, "x = 1\n");
    // The user types into the buffer right after the agent read it.
    acp.afterRead = (path) => acp.buffers.set(path, "x = 1\ny = 1\n");
    const { updates } = await promptOnce(acp, workspace, BOTH);

    const [shown, refused] = finishedCalls(updates);
    expect(outputOf(shown!)).toMatch(/\[sha256: [0-9a-f]{64}\]/);
    expect(refused?.status).toBe("failed");
    expect(outputOf(refused!)).toContain("The file changed underneath");
    expect(acp.fileRequests.filter((r) => r.method === "write")).toEqual([]);
    expect(acp.buffers.get(notes)).toBe("x = 1\ny = 1\n");
    expect(readFileSync(notes, "utf8")).toBe("x = 1\n");
  });

  test("an editor's refusal becomes a tool error the model reads", async () => {
    const workspace = tempDir("ws");
    writeFileSync(join(workspace, "notes.txt"), "x\n");
    const { env, llm } = await serve([{ tool_calls: [read] }, { text: "Could not read it." }]);
    const acp = startAcp(env);
    acp.fileError = "the buffer is locked";
    const { updates } = await promptOnce(acp, workspace, BOTH);
    const [failed] = finishedCalls(updates);
    expect(failed?.status).toBe("failed");
    expect(outputOf(failed!)).toContain(
      "the editor could not read it (Internal error: the buffer is locked)",
    );
    expect(JSON.stringify(llm.requests[1]?.body)).toContain("the buffer is locked");
  });

  test("session/cancel while the editor has not answered a read: the read is cancelled, the prompt answers cancelled", async () => {
    const workspace = tempDir("ws");
    const notes = join(workspace, "notes.txt");
    writeFileSync(notes, "x\n");
    const { env } = await serve([{ tool_calls: [read] }, { text: "never" }]);
    const acp = startAcp(env);
    acp.holdReads = true;
    await acp.initialize(BOTH);
    const { sessionId } = await acp.agent.request("session/new", { cwd: workspace, mcpServers: [] });
    const prompt = acp.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "read" }],
    });
    for (let i = 0; i < 400 && acp.fileRequests.length === 0; i++)
      await new Promise((r) => setTimeout(r, 25));
    expect(acp.fileRequests).toEqual([{ method: "read", path: notes }]);
    await acp.agent.notify("session/cancel", { sessionId });
    expect((await prompt).stopReason).toBe("cancelled");
    for (let i = 0; i < 400 && acp.cancelledReads.length === 0; i++)
      await new Promise((r) => setTimeout(r, 25));
    expect(acp.cancelledReads).toEqual([notes]);
  });

  test("a session loaded with session/load reads through the editor that loaded it", async () => {
    const workspace = tempDir("ws");
    const notes = join(workspace, "notes.txt");
    writeFileSync(notes, "saved\n");
    const { env, llm } = await serve([{ text: "Hello." }, { tool_calls: [read] }, { text: "Read it." }]);
    const first = startAcp(env);
    const { sessionId } = await promptOnce(first, workspace);
    await first.close();

    const second = startAcp(env);
    second.buffers.set(notes, "unsaved\n");
    await second.initialize(BOTH);
    await second.agent.request("session/load", { sessionId, cwd: workspace, mcpServers: [] });
    await second.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "read it" }] });
    expect(second.fileRequests).toEqual([{ method: "read", path: notes }]);
    expect(JSON.stringify(llm.requests.at(-1)?.body)).toContain("unsaved");
  });

  test("an editor that offers only reading: reads from its buffer, writes to the disk", async () => {
    const workspace = tempDir("ws");
    const notes = join(workspace, "notes.txt");
    writeFileSync(notes, "disk\n");
    const { env } = await serve([
      { tool_calls: [read] },
      { tool_calls: [edit("buffer", "written")] },
      { text: "Done." },
    ]);
    const acp = startAcp(env);
    acp.buffers.set(notes, "buffer\n");
    await promptOnce(acp, workspace, { readTextFile: true, writeTextFile: false });
    expect(acp.fileRequests.map((r) => r.method)).toEqual(["read", "read"]);
    expect(readFileSync(notes, "utf8")).toBe("written\n");
  });

  test("an editor without file capabilities: the tools keep the disk and no file request is made", async () => {
    const workspace = tempDir("ws");
    const notes = join(workspace, "notes.txt");
    writeFileSync(notes, "disk\n");
    const { env, llm } = await serve([
      { tool_calls: [read] },
      { tool_calls: [edit("disk", "changed")] },
      { text: "Done." },
    ]);
    const acp = startAcp(env);
    acp.buffers.set(notes, "buffer\n");
    await promptOnce(acp, workspace);
    expect(JSON.stringify(llm.requests[1]?.body)).toContain("disk");
    expect(acp.fileRequests).toEqual([]);
    expect(readFileSync(notes, "utf8")).toBe("changed\n");
  });
});

describe("penguin acp: stop reasons", () => {
  const twoRounds = [{ tool_calls: [read] }, { tool_calls: [read] }, { text: "never" }];

  test("the turn limit answers max_turn_requests", async () => {
    const workspace = tempDir("ws");
    writeFileSync(join(workspace, "notes.txt"), "x\n");
    const { env } = await serve(twoRounds);
    const { result } = await promptOnce(startAcp(env, "max_turns: 1\n"), workspace);
    expect(result.stopReason).toBe("max_turn_requests");
  });

  test("another limit (the token budget) answers end_turn, and says why", async () => {
    const workspace = tempDir("ws");
    writeFileSync(join(workspace, "notes.txt"), "x\n");
    const { env } = await serve(twoRounds);
    const { result, updates } = await promptOnce(startAcp(env, "budget:\n  max_tokens: 1\n"), workspace);
    expect(result.stopReason).toBe("end_turn");
    const said = updates
      .map((u) =>
        u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? u.content.text : "",
      )
      .join("");
    expect(said).toContain("Penguin: the task stopped at a limit: token budget");
  });
});
