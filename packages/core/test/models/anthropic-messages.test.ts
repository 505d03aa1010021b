import { type FakeLlm, startFakeLlm } from "@penguin/fake-llm";
import {
  assistantText,
  type ImageUrlPayload,
  type InlineDataPayload,
  modelMsg,
  thinking,
  toolCall,
  toolCallOutput,
  userText,
} from "@penguin/protocol";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type AnthropicMessagesOptions,
  createAnthropicMessagesModel,
} from "../../src/models/anthropic-messages.js";
import { anthropicMessages, anthropicThinkingConfig } from "../../src/models/anthropic-request.js";
import { createToolCallIdRegistry } from "../../src/models/tool-call-ids.js";
import { collect, deltasByStream, readFileTool, request } from "./helpers.js";

const API_KEY = "sk-ant-test";
let llm: FakeLlm;

beforeEach(async () => {
  llm = await startFakeLlm({ apiKey: API_KEY });
});
afterEach(() => llm.close());

function model(overrides: Partial<AnthropicMessagesOptions> = {}) {
  return createAnthropicMessagesModel({
    provider: "anthropic",
    modelId: "claude-test",
    baseUrl: llm.url,
    apiKey: API_KEY,
    ...overrides,
  });
}

type Block = Record<string, unknown>;
type Body = Record<string, unknown> & { messages: { role: string; content: Block[] }[] };
const bodyOf = (index: number) => llm.requests[index]!.body as Body;

/** A signature with characters that any re-encoding would change. */
const SIGNATURE = 'EqQBCkYIBxgCKkB+/=\u00e9\\"sig\nline2==';

describe("Anthropic Messages adapter", () => {
  it("streams text and maps usage with cache reads and writes", async () => {
    llm.setScript([
      {
        text: "Hello, Claude here.",
        chunk_size: 6,
        usage: { input_tokens: 20, cache_read_tokens: 300, cache_write_tokens: 40, output_tokens: 9 },
      },
    ]);
    const result = await collect(model(), request({ messages: [userText("hi")] }));
    expect(result.outcome).toEqual({
      status: "completed",
      usage: { cache_read: 300, cache_write: 40, output: 9, total: 369 },
    });
    expect(result.complete).toEqual([expect.objectContaining({ type: "text", text: "Hello, Claude here." })]);
    expect([...deltasByStream(result.payloads).values()]).toEqual(["Hello, Claude here."]);
    expect(llm.requests[0]!.path).toBe("/v1/messages");
    expect(llm.requests[0]!.outcome).toBe("answered");
  });

  it("keeps the thinking signature byte for byte and sends it back as a thinking block", async () => {
    llm.setScript([
      { thinking: "Let me think.", thinking_signature: SIGNATURE, text: "Answer." },
      { text: "Second." },
    ]);
    const adapter = model();
    const first = await collect(
      adapter,
      request({ messages: [userText("q")], thinkingLevel: "medium", maxTokens: 20_000 }),
    );
    expect(first.complete[0]).toMatchObject({
      type: "thinking",
      thinking: "Let me think.",
      fidelity: { wire: "anthropic-messages", signature: SIGNATURE },
    });
    expect(bodyOf(0).thinking).toEqual({ type: "enabled", budget_tokens: 8192 });
    expect(bodyOf(0).max_tokens).toBe(20_000);

    await collect(
      adapter,
      request({ messages: [userText("q"), ...first.completeMessages, userText("more")] }),
    );
    expect(bodyOf(1).messages[1]).toEqual({
      role: "assistant",
      content: [
        { type: "thinking", thinking: "Let me think.", signature: SIGNATURE },
        { type: "text", text: "Answer." },
      ],
    });
    // The signature travels byte for byte in the raw request text too.
    expect(llm.requests[1]!.rawBody).toContain(JSON.stringify(SIGNATURE));
  });

  it("drops thinking that has no Anthropic signature", async () => {
    llm.setScript([{ text: "ok" }]);
    const history = [
      userText("q"),
      thinking("from chat", { fidelity: { wire: "openai-chat", reasoning_field: "reasoning_content" } }),
      assistantText("a"),
      userText("next"),
    ];
    await collect(model(), request({ messages: history }));
    expect(bodyOf(0).messages[1]).toEqual({ role: "assistant", content: [{ type: "text", text: "a" }] });
  });

  it("streams several tool calls and sends results back in one user message, in call order", async () => {
    llm.setScript([
      {
        text: "Reading.",
        tool_calls: [
          { id: "toolu_1", name: "read_file", arguments: { path: "a" } },
          { id: "toolu_2", name: "read_file", arguments: { path: "b" } },
          { id: "toolu_3", name: "read_file", arguments: {} },
        ],
        chunk_size: 3,
      },
      { text: "Done." },
    ]);
    const adapter = model();
    const first = await collect(adapter, request({ messages: [userText("go")], tools: [readFileTool] }));
    expect(first.complete.slice(1)).toEqual([
      expect.objectContaining({ type: "tool_call", tool_call_id: "toolu_1", arguments: '{"path":"a"}' }),
      expect.objectContaining({ type: "tool_call", tool_call_id: "toolu_2", arguments: '{"path":"b"}' }),
      expect.objectContaining({ type: "tool_call", tool_call_id: "toolu_3", arguments: "{}" }),
    ]);

    // Outputs arrive out of call order; the request restores it.
    const history = [
      userText("go"),
      ...first.completeMessages,
      toolCallOutput("toolu_2", "B"),
      toolCallOutput("toolu_1", "A", "completed", ["data:image/png;base64,iVBORw0KGgo="]),
      toolCallOutput("toolu_3", "denied", "aborted"),
    ];
    await collect(adapter, request({ messages: history, tools: [readFileTool] }));
    const sent = bodyOf(1);
    expect(sent.messages[1]!.content.slice(1)).toEqual([
      { type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "a" } },
      { type: "tool_use", id: "toolu_2", name: "read_file", input: { path: "b" } },
      { type: "tool_use", id: "toolu_3", name: "read_file", input: {} },
    ]);
    expect(sent.messages[2]).toEqual({
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "toolu_1",
          content: [
            { type: "text", text: "A" },
            { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
          ],
        },
        { type: "tool_result", tool_use_id: "toolu_2", content: "B" },
        {
          type: "tool_result",
          tool_use_id: "toolu_3",
          content: "denied",
          is_error: true,
          cache_control: { type: "ephemeral" },
        },
      ],
    });
  });

  it("puts cache breakpoints on the system prompt, the last tool and the last message", async () => {
    llm.setScript([{ text: "ok" }]);
    const second = { ...readFileTool, name: "write_file" };
    const image = modelMsg<ImageUrlPayload>({
      type: "image_url",
      role: "user",
      image_url: "https://example.com/a.png",
    });
    await collect(model(), request({ messages: [userText("look"), image], tools: [readFileTool, second] }));
    const body = bodyOf(0) as Body & { system: Block[]; tools: Block[] };
    expect(body.system).toEqual([
      { type: "text", text: "You are a test.", cache_control: { type: "ephemeral" } },
    ]);
    expect(body.tools.map((t) => t.cache_control)).toEqual([undefined, { type: "ephemeral" }]);
    expect(body.tools[0]).toMatchObject({ name: "read_file", input_schema: readFileTool.parameters });
    expect(body.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "look" },
          {
            type: "image",
            source: { type: "url", url: "https://example.com/a.png" },
            cache_control: { type: "ephemeral" },
          },
        ],
      },
    ]);
  });

  it("makes repeated tool_use ids unique and strips the suffix on the way back", async () => {
    llm.setScript([
      { tool_calls: [{ id: "dup", name: "read_file", arguments: { path: "a" } }] },
      { tool_calls: [{ id: "dup", name: "read_file", arguments: { path: "b" } }] },
      { text: "ok" },
    ]);
    const adapter = model({ toolCallIds: createToolCallIdRegistry() });
    const first = await collect(adapter, request({ messages: [userText("go")] }));
    const history1 = [userText("go"), ...first.completeMessages, toolCallOutput("dup", "A")];
    const second = await collect(adapter, request({ messages: history1 }));
    expect(second.complete[0]).toMatchObject({ tool_call_id: "dup#2" });
    await collect(
      adapter,
      request({ messages: [...history1, ...second.completeMessages, toolCallOutput("dup#2", "B")] }),
    );
    const ids = bodyOf(2).messages.flatMap((m) =>
      m.content.map((b) => b.id ?? b.tool_use_id).filter(Boolean),
    );
    expect(ids).toEqual(["dup", "dup", "dup", "dup"]);
  });

  it("sends redacted thinking back as it came, PDFs as documents, malformed arguments verbatim", () => {
    const messages = [
      modelMsg<InlineDataPayload>({
        type: "inline_data",
        role: "user",
        data: "JVBERi0=",
        mime_type: "application/pdf",
      }),
      thinking("", { fidelity: { wire: "anthropic-messages", redacted_data: "OPAQUE" } }),
      toolCall("read_file", "{not json", "toolu_9"),
    ];
    expect(anthropicMessages(request({ messages }), createToolCallIdRegistry())).toEqual([
      {
        role: "user",
        content: [
          { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0=" } },
        ],
      },
      {
        role: "assistant",
        content: [
          { type: "redacted_thinking", data: "OPAQUE" },
          {
            type: "tool_use",
            id: "toolu_9",
            name: "read_file",
            input: { malformed_arguments: "{not json" },
            cache_control: { type: "ephemeral" },
          },
        ],
      },
    ]);
  });

  it("maps thinking levels to budgets that fit under max_tokens", () => {
    expect(anthropicThinkingConfig("none", 32_000)).toBeUndefined();
    expect(anthropicThinkingConfig("high", 32_000)).toEqual({ type: "enabled", budget_tokens: 16_384 });
    expect(anthropicThinkingConfig("max", 32_000)).toEqual({ type: "enabled", budget_tokens: 24_576 });
    // Capped so that max_tokens keeps room for the answer...
    expect(anthropicThinkingConfig("max", 8_000)).toEqual({ type: "enabled", budget_tokens: 6_976 });
    // ...and left off when even the smallest budget would not fit.
    expect(anthropicThinkingConfig("low", 2_000)).toBeUndefined();
  });
});

describe("Anthropic Messages adapter: failures", () => {
  it("maps 401 to auth", async () => {
    const result = await collect(model({ apiKey: "wrong" }), request({ messages: [userText("hi")] }));
    expect(result.outcome.status).toBe("auth");
  });

  it("maps 429 to failed with retryAfterMs", async () => {
    llm.setScript([{ error: { status: 429, retry_after: 2 } }]);
    const result = await collect(model(), request({ messages: [userText("hi")] }));
    expect(result.outcome).toMatchObject({ status: "failed", retryAfterMs: 2000 });
  });

  it.each([500, 529])("maps %i to failed", async (status) => {
    llm.setScript([{ error: { status } }]);
    const result = await collect(model(), request({ messages: [userText("hi")] }));
    expect(result.outcome.status).toBe("failed");
    expect(result.outcome.errorMessage).toContain(`HTTP ${status}`);
  });

  it("ends a stalled stream as timeout", async () => {
    llm.setScript([{ thinking: "abcdef", chunk_size: 2, stall: { after_chunks: 2 } }]);
    const result = await collect(model({ idleTimeoutMs: 200 }), request({ messages: [userText("hi")] }));
    expect(result.outcome.status).toBe("timeout");
    expect(result.complete).toEqual([
      expect.objectContaining({ type: "thinking", thinking: "abcd", stop_reason: "timeout" }),
    ]);
  });

  it("reports a cut stream as failed with the partial output", async () => {
    llm.setScript([{ text: "abcdefgh", chunk_size: 2, cut: { after_chunks: 2 } }]);
    const result = await collect(model(), request({ messages: [userText("hi")] }));
    expect(result.outcome.status).toBe("failed");
    expect(result.complete).toEqual([expect.objectContaining({ text: "abcd", stop_reason: "failed" })]);
  });

  it("reports malformed event JSON as malformed", async () => {
    llm.setScript([{ text: "abcdefgh", chunk_size: 2, malformed: { after_chunks: 1 } }]);
    const result = await collect(model(), request({ messages: [userText("hi")] }));
    expect(result.outcome.status).toBe("malformed");
  });

  it("ends as aborted when the caller aborts", async () => {
    llm.setScript([{ text: "abcdefgh", chunk_size: 2, stall: { after_chunks: 1 } }]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const result = await collect(model(), request({ messages: [userText("hi")], signal: controller.signal }));
    expect(result.outcome.status).toBe("aborted");
    expect(result.complete).toEqual([expect.objectContaining({ text: "ab", stop_reason: "aborted" })]);
  });
});
