import { type FakeLlm, startFakeLlm } from "@penguin/fake-llm";
import {
  assistantText,
  type ImageUrlPayload,
  modelMsg,
  thinking,
  toolCallOutput,
  userText,
} from "@penguin/protocol";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createOpenAIChatModel, type OpenAIChatOptions } from "../../src/models/openai-chat.js";
import { createToolCallIdRegistry } from "../../src/models/tool-call-ids.js";
import { collect, deltasByStream, readFileTool, request } from "./helpers.js";

const API_KEY = "sk-test-chat";
let llm: FakeLlm;

beforeEach(async () => {
  llm = await startFakeLlm({ apiKey: API_KEY });
});
afterEach(() => llm.close());

function model(overrides: Partial<OpenAIChatOptions> = {}) {
  return createOpenAIChatModel({
    provider: "openai",
    modelId: "gpt-test",
    baseUrl: `${llm.url}/v1`,
    apiKey: API_KEY,
    ...overrides,
  });
}

type Body = Record<string, unknown> & { messages: Record<string, unknown>[] };
const bodyOf = (index: number) => llm.requests[index]!.body as Body;

describe("OpenAI Chat Completions adapter", () => {
  it("streams text as partials and a complete message, and maps usage", async () => {
    llm.setScript([
      {
        text: "Hello from the fake model.",
        chunk_size: 5,
        usage: { input_tokens: 90, cache_read_tokens: 10, output_tokens: 6 },
      },
    ]);
    const result = await collect(model(), request({ messages: [userText("hi")] }));
    expect(result.outcome).toEqual({
      status: "completed",
      usage: { cache_read: 10, cache_write: 0, output: 6, total: 106 },
    });
    expect(result.complete).toEqual([
      expect.objectContaining({ type: "text", role: "assistant", text: "Hello from the fake model." }),
    ]);
    expect([...deltasByStream(result.payloads).values()]).toEqual(["Hello from the fake model."]);
    const body = bodyOf(0);
    expect(body).toMatchObject({ model: "gpt-test", stream: true, stream_options: { include_usage: true } });
    expect(body.messages).toEqual([
      { role: "system", content: "You are a test." },
      { role: "user", content: "hi" },
    ]);
    expect(llm.requests[0]!.headers.authorization).toBe(`Bearer ${API_KEY}`);
  });

  it("delivers a long answer of many one-character chunks whole, emoji included", async () => {
    const text = "Penguins 🐧 swim. ".repeat(300);
    llm.setScript([{ text, chunk_size: 1 }]);
    const result = await collect(model(), request({ messages: [userText("hi")] }));
    expect(result.outcome.status).toBe("completed");
    expect(result.complete).toEqual([expect.objectContaining({ type: "text", text })]);
    expect([...deltasByStream(result.payloads).values()]).toEqual([text]);
  });

  it("streams reasoning_content as thinking and sends it back in the same field", async () => {
    llm.setScript([{ thinking: "Think first.", text: "Then answer." }, { text: "ok" }]);
    const adapter = model();
    const first = await collect(adapter, request({ messages: [userText("q")] }));
    expect(first.complete).toEqual([
      expect.objectContaining({
        type: "thinking",
        thinking: "Think first.",
        fidelity: { wire: "openai-chat", reasoning_field: "reasoning_content" },
      }),
      expect.objectContaining({ type: "text", text: "Then answer." }),
    ]);
    await collect(adapter, request({ messages: [userText("q"), ...first.completeMessages] }));
    expect(bodyOf(1).messages[2]).toEqual({
      role: "assistant",
      content: "Then answer.",
      reasoning_content: "Think first.",
    });
  });

  it("drops thinking from other wires and when replay is off", async () => {
    llm.setScript([{ text: "a" }, { text: "b" }]);
    const history = [
      userText("q"),
      thinking("from anthropic", { fidelity: { wire: "anthropic-messages", signature: "s" } }),
      assistantText("answer"),
    ];
    await collect(model(), request({ messages: history }));
    expect(bodyOf(0).messages[2]).toEqual({ role: "assistant", content: "answer" });
    const mine = [
      userText("q"),
      thinking("t", { fidelity: { wire: "openai-chat", reasoning_field: "reasoning" } }),
    ];
    await collect(model({ replayReasoning: false }), request({ messages: [...mine, assistantText("x")] }));
    expect(bodyOf(1).messages[2]).toEqual({ role: "assistant", content: "x" });
  });

  it("streams several tool calls in one turn and sends outputs back in call order", async () => {
    llm.setScript([
      {
        text: "Reading both.",
        tool_calls: [
          { id: "call_a", name: "read_file", arguments: { path: "a.txt" } },
          { id: "call_b", name: "read_file", arguments: { path: "b.txt" } },
        ],
        chunk_size: 4,
      },
      { text: "Done." },
    ]);
    const adapter = model();
    const first = await collect(adapter, request({ messages: [userText("read")], tools: [readFileTool] }));
    expect(first.complete).toEqual([
      expect.objectContaining({ type: "text", text: "Reading both." }),
      expect.objectContaining({
        type: "tool_call",
        name: "read_file",
        arguments: '{"path":"a.txt"}',
        tool_call_id: "call_a",
      }),
      expect.objectContaining({
        type: "tool_call",
        name: "read_file",
        arguments: '{"path":"b.txt"}',
        tool_call_id: "call_b",
      }),
    ]);
    expect(bodyOf(0).tools).toEqual([
      {
        type: "function",
        function: { name: "read_file", description: "Read a file", parameters: readFileTool.parameters },
      },
    ]);

    const history = [
      userText("read"),
      ...first.completeMessages,
      toolCallOutput("call_a", "contents of a"),
      toolCallOutput("call_b", "contents of b", "completed", ["data:image/png;base64,AAAA"]),
    ];
    const second = await collect(adapter, request({ messages: history, tools: [readFileTool] }));
    expect(second.outcome.status).toBe("completed");
    expect(bodyOf(1).messages.slice(2)).toEqual([
      {
        role: "assistant",
        content: "Reading both.",
        tool_calls: [
          { id: "call_a", type: "function", function: { name: "read_file", arguments: '{"path":"a.txt"}' } },
          { id: "call_b", type: "function", function: { name: "read_file", arguments: '{"path":"b.txt"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_a", content: "contents of a" },
      { role: "tool", tool_call_id: "call_b", content: "contents of b" },
      {
        role: "user",
        content: [
          { type: "text", text: "Images returned by tool call call_b:" },
          { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
        ],
      },
    ]);
  });

  it("makes repeated tool call ids unique and strips the suffix when sending them back", async () => {
    llm.setScript([
      {
        tool_calls: [
          { id: "read_file", name: "read_file", arguments: { path: "a" } },
          { id: "read_file", name: "read_file", arguments: { path: "b" } },
        ],
      },
      { text: "ok" },
    ]);
    const ids = createToolCallIdRegistry();
    const adapter = model({ toolCallIds: ids });
    const first = await collect(adapter, request({ messages: [userText("go")] }));
    const callIds = first.complete.map((p) => (p as { tool_call_id: string }).tool_call_id);
    expect(callIds).toEqual(["read_file", "read_file#2"]);
    const history = [
      userText("go"),
      ...first.completeMessages,
      toolCallOutput("read_file", "A"),
      toolCallOutput("read_file#2", "B"),
    ];
    await collect(adapter, request({ messages: history }));
    const sent = bodyOf(1).messages;
    expect((sent[2]!.tool_calls as { id: string }[]).map((c) => c.id)).toEqual(["read_file", "read_file"]);
    expect(sent.slice(3).map((m) => m.tool_call_id)).toEqual(["read_file", "read_file"]);
  });

  it("sends images as image_url parts and maps max tokens and reasoning effort", async () => {
    llm.setScript([{ text: "a cat" }, { text: "b" }]);
    const messages = [
      userText("what is this?"),
      modelMsg<ImageUrlPayload>({
        type: "image_url",
        role: "user",
        image_url: "https://example.com/cat.png",
      }),
    ];
    await collect(
      model({ maxTokensField: "max_completion_tokens" }),
      request({ messages, maxTokens: 500, thinkingLevel: "high" }),
    );
    expect(bodyOf(0)).toMatchObject({ max_completion_tokens: 500, reasoning_effort: "high" });
    expect(bodyOf(0).messages[1]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "what is this?" },
        { type: "image_url", image_url: { url: "https://example.com/cat.png" } },
      ],
    });
    await collect(model(), request({ messages: [userText("q")], maxTokens: 100, thinkingLevel: "none" }));
    expect(bodyOf(1).max_tokens).toBe(100);
    expect(bodyOf(1)).not.toHaveProperty("reasoning_effort");
    expect(bodyOf(1)).not.toHaveProperty("max_completion_tokens");
  });
});

describe("OpenAI Chat Completions adapter: failures", () => {
  it("maps 401 to auth", async () => {
    const result = await collect(model({ apiKey: "wrong" }), request({ messages: [userText("hi")] }));
    expect(result.outcome.status).toBe("auth");
    expect(result.outcome.errorMessage).toContain("401");
  });

  it("maps 429 to failed with retryAfterMs from retry-after", async () => {
    llm.setScript([{ error: { status: 429, retry_after: 7 } }]);
    const result = await collect(model(), request({ messages: [userText("hi")] }));
    expect(result.outcome).toMatchObject({ status: "failed", retryAfterMs: 7000 });
  });

  it("maps 500 to failed", async () => {
    llm.setScript([{ error: { status: 500, message: "boom" } }]);
    const result = await collect(model(), request({ messages: [userText("hi")] }));
    expect(result.outcome).toMatchObject({ status: "failed", errorMessage: "HTTP 500: boom" });
    expect(result.outcome.permanent).toBeUndefined();
  });

  it("maps a 400 to a permanent failure", async () => {
    llm.setScript([{ error: { status: 400, message: "bad" } }]);
    const result = await collect(model(), request({ messages: [userText("hi")] }));
    expect(result.outcome).toMatchObject({ status: "failed", permanent: true });
  });

  it("ends a stalled stream as timeout after the idle timeout, keeping what arrived", async () => {
    llm.setScript([{ text: "abcdefgh", chunk_size: 2, stall: { after_chunks: 2 } }]);
    const result = await collect(model({ idleTimeoutMs: 200 }), request({ messages: [userText("hi")] }));
    expect(result.outcome.status).toBe("timeout");
    expect(result.complete).toEqual([expect.objectContaining({ text: "abcd", stop_reason: "timeout" })]);
  });

  it("ends a stream that sends no headers as timeout after the request timeout", async () => {
    llm.setScript([{ text: "abc", stall: { after_chunks: 0 } }]);
    const result = await collect(model({ timeoutMs: 200 }), request({ messages: [userText("hi")] }));
    expect(result.outcome.status).toBe("timeout");
  });

  it("reports a cut stream as failed after yielding the partial output", async () => {
    llm.setScript([{ text: "abcdefgh", chunk_size: 2, cut: { after_chunks: 3 } }]);
    const result = await collect(model(), request({ messages: [userText("hi")] }));
    expect(result.outcome.status).toBe("failed");
    expect(result.outcome.errorMessage).toMatch(/dropped before the reply was complete/);
    expect(result.complete).toEqual([expect.objectContaining({ text: "abcdef", stop_reason: "failed" })]);
  });

  it("reports malformed chunk JSON as malformed", async () => {
    llm.setScript([{ text: "abcdefgh", chunk_size: 2, malformed: { after_chunks: 1 } }]);
    const result = await collect(model(), request({ messages: [userText("hi")] }));
    expect(result.outcome.status).toBe("malformed");
    expect(result.complete).toEqual([expect.objectContaining({ text: "ab", stop_reason: "malformed" })]);
  });

  it("ends as aborted when the caller aborts mid-stream", async () => {
    llm.setScript([{ text: "abcdefgh", chunk_size: 2, stall: { after_chunks: 1 } }]);
    const controller = new AbortController();
    const adapter = model();
    const messages: string[] = [];
    const generator = adapter.stream(request({ messages: [userText("hi")], signal: controller.signal }));
    let next = await generator.next();
    while (!next.done) {
      const payload = next.value.payload as { type: string; event_type?: string };
      messages.push(payload.type);
      if (payload.type === "partial_text" && payload.event_type === "delta") controller.abort();
      next = await generator.next();
    }
    expect(next.value.status).toBe("aborted");
    expect(messages.at(-1)).toBe("text");
  });

  it("ends as aborted when the caller aborts before the response headers", async () => {
    llm.setScript([{ text: "abc", stall: { after_chunks: 0 } }]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const result = await collect(model(), request({ messages: [userText("hi")], signal: controller.signal }));
    expect(result.outcome.status).toBe("aborted");
    expect(result.messages).toEqual([]);
  });

  it("reports an unreachable server as failed", async () => {
    const url = llm.url;
    await llm.close();
    const adapter = createOpenAIChatModel({ provider: "x", modelId: "m", baseUrl: `${url}/v1`, apiKey: "k" });
    const result = await collect(adapter, request());
    expect(result.outcome.status).toBe("failed");
    expect(result.outcome.errorMessage).toMatch(/connection/i);
    llm = await startFakeLlm();
  });
});
