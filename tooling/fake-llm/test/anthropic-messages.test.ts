import Anthropic from "@anthropic-ai/sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeLlm, startFakeLlm } from "../src/index.js";

let llm: FakeLlm;
let client: Anthropic;

beforeEach(async () => {
  llm = await startFakeLlm({ apiKey: "sk-ant-test" });
  client = new Anthropic({ baseURL: llm.url, apiKey: "sk-ant-test", maxRetries: 0 });
});
afterEach(() => llm.close());

const tools = [
  { name: "read_file", input_schema: { type: "object" as const } },
  { name: "exec_command", input_schema: { type: "object" as const } },
];
const base = { model: "claude-test", max_tokens: 1024, messages: [{ role: "user" as const, content: "hi" }] };

describe("Anthropic Messages", () => {
  it("streams text deltas and the event sequence of the Messages API", async () => {
    llm.setScript([{ text: "Hello, Claude here.", chunk_size: 6 }]);
    const stream = client.messages.stream(base);
    const texts: string[] = [];
    stream.on("text", (delta) => texts.push(delta));
    const events: string[] = [];
    stream.on("streamEvent", (event) => events.push(event.type));
    const message = await stream.finalMessage();
    expect(texts).toEqual(["Hello,", " Claud", "e here", "."]);
    expect(message.content).toHaveLength(1);
    expect(message.content[0]).toMatchObject({ type: "text", text: "Hello, Claude here." });
    expect(message.stop_reason).toBe("end_turn");
    expect(message.model).toBe("claude-test");
    expect(events).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
  });

  it("sends a ping after message_start and names every event", async () => {
    llm.setScript([{ text: "x" }]);
    const res = await fetch(`${llm.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": "sk-ant-test" },
      body: JSON.stringify({ ...base, stream: true }),
    });
    const events = [...(await res.text()).matchAll(/^event: (\S+)$/gm)].map((m) => m[1]);
    expect(events.slice(0, 3)).toEqual(["message_start", "ping", "content_block_start"]);
  });

  it("streams thinking with thinking_delta and replays the scripted signature", async () => {
    llm.setScript([{ thinking: "Considering the question.", thinking_signature: "sig==", text: "Answer." }]);
    const stream = client.messages.stream({ ...base, thinking: { type: "enabled", budget_tokens: 1024 } });
    let thinking = "";
    stream.on("thinking", (delta) => {
      thinking += delta;
    });
    const message = await stream.finalMessage();
    expect(thinking).toBe("Considering the question.");
    expect(message.content[0]).toEqual({
      type: "thinking",
      thinking: "Considering the question.",
      signature: "sig==",
    });
    expect(message.content[1]).toMatchObject({ type: "text", text: "Answer." });
  });

  it("streams several tool_use blocks whose input_json_delta the SDK reassembles", async () => {
    llm.setScript([
      {
        text: "Calling tools.",
        tool_calls: [
          { id: "toolu_1", name: "read_file", arguments: { path: "a.ts", range: [1, 20] } },
          { id: "toolu_2", name: "exec_command", arguments: { cmd: "npm test", env: { CI: "1" } } },
        ],
        chunk_size: 3,
      },
    ]);
    const message = await client.messages.stream({ ...base, tools }).finalMessage();
    expect(message.stop_reason).toBe("tool_use");
    expect(message.content.slice(1)).toEqual([
      { type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "a.ts", range: [1, 20] } },
      { type: "tool_use", id: "toolu_2", name: "exec_command", input: { cmd: "npm test", env: { CI: "1" } } },
    ]);
  });

  it("answers a non-streaming request with one message", async () => {
    llm.setScript([
      { thinking: "hm", text: "Plain.", tool_calls: [{ name: "read_file", arguments: { path: "x" } }] },
    ]);
    const message = await client.messages.create({ ...base, tools });
    expect(message.type).toBe("message");
    expect(message.content.map((block) => block.type)).toEqual(["thinking", "text", "tool_use"]);
    expect(message.content[2]).toEqual({
      type: "tool_use",
      id: "call_0_0",
      name: "read_file",
      input: { path: "x" },
    });
  });

  it("reports scripted usage, cache reads and writes apart from input_tokens", async () => {
    llm.setScript([
      {
        text: "ok",
        usage: { input_tokens: 12, output_tokens: 9, cache_read_tokens: 30, cache_write_tokens: 4 },
      },
    ]);
    const message = await client.messages.stream(base).finalMessage();
    expect(message.usage).toMatchObject({
      input_tokens: 12,
      output_tokens: 9,
      cache_read_input_tokens: 30,
      cache_creation_input_tokens: 4,
    });
  });

  // @anthropic-ai/sdk 1.x sends its apiKey as a bearer token; x-api-key is accepted as well.
  it("records the request: auth header and tool_result blocks in call order", async () => {
    llm.setScript([{ text: "done" }]);
    await client.messages.create({
      ...base,
      system: "You are terse.",
      messages: [
        { role: "user", content: "go" },
        {
          role: "assistant",
          content: [
            { type: "tool_use", id: "t1", name: "read_file", input: {} },
            { type: "tool_use", id: "t2", name: "read_file", input: {} },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "t1", content: "one" },
            { type: "tool_result", tool_use_id: "t2", content: "two" },
          ],
        },
      ],
    });
    const [request] = await llm.waitForRequests(1);
    expect(request).toMatchObject({ path: "/v1/messages", protocol: "anthropic-messages", stream: false });
    expect(request!.headers.authorization).toBe("Bearer sk-ant-test");
    expect(request!.headers["anthropic-version"]).toBeDefined();
    const body = request!.body as {
      system: string;
      messages: { content: { tool_use_id?: string }[] | string }[];
    };
    expect(body.system).toBe("You are terse.");
    const last = body.messages.at(-1)!.content as { tool_use_id?: string }[];
    expect(last.map((block) => block.tool_use_id)).toEqual(["t1", "t2"]);
  });
});
