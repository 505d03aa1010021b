import { type FakeLlm, startFakeLlm } from "@penguin/fake-llm";
import { toolCallOutput, userText } from "@penguin/protocol";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createOpenAIResponsesModel,
  type OpenAIResponsesOptions,
} from "../../src/models/openai-responses.js";
import { collect, deltasByStream, readFileTool, request } from "./helpers.js";

const API_KEY = "sk-test-responses";
let llm: FakeLlm;

beforeEach(async () => {
  llm = await startFakeLlm({ apiKey: API_KEY });
});
afterEach(() => llm.close());

function model(overrides: Partial<OpenAIResponsesOptions> = {}) {
  return createOpenAIResponsesModel({
    provider: "openai-responses",
    modelId: "gpt-test",
    baseUrl: `${llm.url}/v1`,
    apiKey: API_KEY,
    ...overrides,
  });
}

type Body = Record<string, unknown> & { input: Record<string, unknown>[] };
const bodyOf = (index: number) => llm.requests[index]!.body as Body;

describe("OpenAI Responses adapter", () => {
  it("streams text, sends a stateless request and maps usage", async () => {
    llm.setScript([
      {
        text: "Hello there.",
        chunk_size: 4,
        usage: { input_tokens: 50, cache_read_tokens: 30, output_tokens: 5 },
      },
    ]);
    const result = await collect(model(), request({ messages: [userText("hi")], maxTokens: 256 }));
    expect(result.outcome).toEqual({
      status: "completed",
      usage: { cache_read: 30, cache_write: 0, output: 5, total: 85 },
    });
    expect(result.complete).toEqual([expect.objectContaining({ type: "text", text: "Hello there." })]);
    expect([...deltasByStream(result.payloads).values()]).toEqual(["Hello there."]);
    expect(llm.requests[0]!.path).toBe("/v1/responses");
    expect(bodyOf(0)).toMatchObject({
      model: "gpt-test",
      stream: true,
      store: false,
      include: ["reasoning.encrypted_content"],
      instructions: "You are a test.",
      max_output_tokens: 256,
      input: [{ role: "user", content: [{ type: "input_text", text: "hi" }] }],
    });
    expect(bodyOf(0)).not.toHaveProperty("reasoning");
  });

  it("streams the reasoning summary as thinking and replays the encrypted reasoning item", async () => {
    llm.setScript([
      { thinking: "Short summary.", thinking_signature: "ENCRYPTED==", text: "Answer." },
      { text: "ok" },
    ]);
    const adapter = model();
    const first = await collect(adapter, request({ messages: [userText("q")], thinkingLevel: "max" }));
    expect(bodyOf(0).reasoning).toEqual({ effort: "xhigh", summary: "auto" });
    expect(first.complete[0]).toMatchObject({
      type: "thinking",
      thinking: "Short summary.",
      fidelity: {
        wire: "openai-responses",
        reasoning_item: {
          id: "rs_fake_0",
          encrypted_content: "ENCRYPTED==",
          summary: [{ type: "summary_text", text: "Short summary." }],
        },
      },
    });
    await collect(
      adapter,
      request({ messages: [userText("q"), ...first.completeMessages, userText("next")] }),
    );
    expect(bodyOf(1).input).toEqual([
      { role: "user", content: [{ type: "input_text", text: "q" }] },
      {
        type: "reasoning",
        id: "rs_fake_0",
        summary: [{ type: "summary_text", text: "Short summary." }],
        encrypted_content: "ENCRYPTED==",
      },
      { role: "assistant", content: "Answer." },
      { role: "user", content: [{ type: "input_text", text: "next" }] },
    ]);
  });

  it("streams several function calls and sends outputs back in call order", async () => {
    llm.setScript([
      {
        tool_calls: [
          { id: "call_1", name: "read_file", arguments: { path: "a" } },
          { id: "call_2", name: "read_file", arguments: { path: "b" } },
        ],
        chunk_size: 5,
      },
      { text: "Both read." },
    ]);
    const adapter = model();
    const first = await collect(adapter, request({ messages: [userText("go")], tools: [readFileTool] }));
    expect(first.complete).toEqual([
      expect.objectContaining({
        type: "tool_call",
        tool_call_id: "call_1",
        name: "read_file",
        arguments: '{"path":"a"}',
      }),
      expect.objectContaining({
        type: "tool_call",
        tool_call_id: "call_2",
        name: "read_file",
        arguments: '{"path":"b"}',
      }),
    ]);
    expect(bodyOf(0).tools).toEqual([
      {
        type: "function",
        name: "read_file",
        description: "Read a file",
        parameters: readFileTool.parameters,
        strict: false,
      },
    ]);
    const history = [
      userText("go"),
      ...first.completeMessages,
      toolCallOutput("call_1", "A"),
      toolCallOutput("call_2", "B", "completed", ["data:image/png;base64,AAAA"]),
    ];
    const second = await collect(adapter, request({ messages: history, tools: [readFileTool] }));
    expect(second.complete).toEqual([expect.objectContaining({ text: "Both read." })]);
    expect(bodyOf(1).input.slice(1)).toEqual([
      { type: "function_call", call_id: "call_1", name: "read_file", arguments: '{"path":"a"}' },
      { type: "function_call", call_id: "call_2", name: "read_file", arguments: '{"path":"b"}' },
      { type: "function_call_output", call_id: "call_1", output: "A" },
      {
        type: "function_call_output",
        call_id: "call_2",
        output: [
          { type: "input_text", text: "B" },
          { type: "input_image", image_url: "data:image/png;base64,AAAA", detail: "auto" },
        ],
      },
    ]);
  });
});

describe("OpenAI Responses adapter: failures", () => {
  it("maps 401 to auth", async () => {
    const result = await collect(model({ apiKey: "nope" }), request({ messages: [userText("hi")] }));
    expect(result.outcome.status).toBe("auth");
  });

  it("maps 429 to failed with retryAfterMs", async () => {
    llm.setScript([{ error: { status: 429, retry_after: 1.5 } }]);
    const result = await collect(model(), request({ messages: [userText("hi")] }));
    expect(result.outcome).toMatchObject({ status: "failed", retryAfterMs: 1500 });
  });

  it("maps 500 to failed", async () => {
    llm.setScript([{ error: { status: 500 } }]);
    const result = await collect(model(), request({ messages: [userText("hi")] }));
    expect(result.outcome.status).toBe("failed");
  });

  it("ends a stalled stream as timeout", async () => {
    llm.setScript([{ text: "abcdef", chunk_size: 2, stall: { after_chunks: 1 } }]);
    const result = await collect(model({ idleTimeoutMs: 200 }), request({ messages: [userText("hi")] }));
    expect(result.outcome.status).toBe("timeout");
    expect(result.complete).toEqual([expect.objectContaining({ text: "ab", stop_reason: "timeout" })]);
  });

  it("reports a cut stream as failed with the partial output", async () => {
    llm.setScript([{ text: "abcdef", chunk_size: 2, cut: { after_chunks: 2 } }]);
    const result = await collect(model(), request({ messages: [userText("hi")] }));
    expect(result.outcome.status).toBe("failed");
    expect(result.complete).toEqual([expect.objectContaining({ text: "abcd", stop_reason: "failed" })]);
  });

  it("reports malformed event JSON as malformed", async () => {
    llm.setScript([{ text: "abcdef", chunk_size: 2, malformed: { after_chunks: 1 } }]);
    const result = await collect(model(), request({ messages: [userText("hi")] }));
    expect(result.outcome.status).toBe("malformed");
  });

  it("ends as aborted when the caller aborts", async () => {
    llm.setScript([{ text: "abcdef", chunk_size: 2, stall: { after_chunks: 1 } }]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const result = await collect(model(), request({ messages: [userText("hi")], signal: controller.signal }));
    expect(result.outcome.status).toBe("aborted");
  });
});
