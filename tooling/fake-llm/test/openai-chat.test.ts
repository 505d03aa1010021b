import OpenAI from "openai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeLlm, startFakeLlm } from "../src/index.js";

const API_KEY = "sk-test";
let llm: FakeLlm;
let client: OpenAI;

beforeEach(async () => {
  llm = await startFakeLlm();
  client = new OpenAI({ baseURL: `${llm.url}/v1`, apiKey: API_KEY, maxRetries: 0 });
});
afterEach(() => llm.close());

const tools = [
  { type: "function" as const, function: { name: "read_file", parameters: { type: "object" } } },
  { type: "function" as const, function: { name: "exec_command", parameters: { type: "object" } } },
];

describe("OpenAI Chat Completions", () => {
  it("streams text in chunk_size deltas that the SDK reassembles", async () => {
    llm.setScript([{ text: "Hello from the fake model.", chunk_size: 5 }]);
    const stream = client.chat.completions.stream({
      model: "gpt-test",
      messages: [{ role: "user", content: "hi" }],
    });
    const deltas: string[] = [];
    stream.on("content", (delta) => deltas.push(delta));
    const completion = await stream.finalChatCompletion();
    expect(deltas).toEqual(["Hello", " from", " the ", "fake ", "model", "."]);
    expect(completion.choices[0]!.message.content).toBe("Hello from the fake model.");
    expect(completion.choices[0]!.finish_reason).toBe("stop");
    expect(completion.model).toBe("gpt-test");
  });

  it("streams thinking as reasoning_content deltas before the text", async () => {
    // chunk_delay_ms paces the deltas (as benchmarks use it); nothing here depends on timing.
    llm.setScript([
      { thinking: "Let me think about this.", text: "Done.", chunk_size: 8, chunk_delay_ms: 2 },
    ]);
    const stream = client.chat.completions.stream({ model: "m", messages: [{ role: "user", content: "q" }] });
    const order: string[] = [];
    let reasoning = "";
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as { content?: string; reasoning_content?: string } | undefined;
      if (delta?.reasoning_content) {
        reasoning += delta.reasoning_content;
        order.push("thinking");
      }
      if (delta?.content) order.push("text");
    }
    expect(reasoning).toBe("Let me think about this.");
    expect(order.indexOf("text")).toBeGreaterThan(order.lastIndexOf("thinking"));
    expect((await stream.finalChatCompletion()).choices[0]!.message.content).toBe("Done.");
  });

  it("streams several tool calls whose argument deltas the SDK reassembles in order", async () => {
    llm.setScript([
      {
        text: "Running two tools.",
        tool_calls: [
          { id: "call_a", name: "read_file", arguments: { path: "src/index.ts", limit: 200 } },
          { name: "exec_command", arguments: '{"cmd": "ls -la", "timeout_ms": 1000}' },
        ],
        chunk_size: 4,
      },
    ]);
    const completion = await client.chat.completions
      .stream({ model: "m", messages: [{ role: "user", content: "go" }], tools })
      .finalChatCompletion();
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    const calls = (choice.message.tool_calls ?? []).map((call) => {
      if (call.type !== "function") throw new Error(`unexpected tool call type ${call.type}`);
      return { id: call.id, name: call.function.name, arguments: call.function.arguments };
    });
    expect(calls).toEqual([
      { id: "call_a", name: "read_file", arguments: '{"path":"src/index.ts","limit":200}' },
      { id: "call_0_1", name: "exec_command", arguments: '{"cmd": "ls -la", "timeout_ms": 1000}' },
    ]);
  });

  it("answers a non-streaming request with one chat.completion", async () => {
    llm.setScript([
      {
        thinking: "hmm",
        text: "Plain answer.",
        tool_calls: [{ name: "read_file", arguments: { path: "a" } }],
      },
    ]);
    const completion = await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "q" }],
      tools,
    });
    expect(completion.object).toBe("chat.completion");
    const message = completion.choices[0]!.message as (typeof completion.choices)[0]["message"] & {
      reasoning_content?: string;
    };
    expect(message.content).toBe("Plain answer.");
    expect(message.reasoning_content).toBe("hmm");
    expect(message.tool_calls?.[0]).toMatchObject({
      id: "call_0_0",
      function: { name: "read_file", arguments: '{"path":"a"}' },
    });
    expect(completion.choices[0]!.finish_reason).toBe("tool_calls");
  });

  it("reports scripted usage in a final chunk when stream_options.include_usage is set", async () => {
    llm.setScript([
      {
        text: "ok",
        usage: { input_tokens: 100, output_tokens: 7, cache_read_tokens: 40, cache_write_tokens: 0 },
      },
    ]);
    const completion = await client.chat.completions
      .stream({
        model: "m",
        messages: [{ role: "user", content: "q" }],
        stream_options: { include_usage: true },
      })
      .finalChatCompletion();
    expect(completion.usage).toMatchObject({
      prompt_tokens: 140,
      completion_tokens: 7,
      total_tokens: 147,
      prompt_tokens_details: { cached_tokens: 40 },
    });
  });

  it("estimates usage from the request and the answer when the script gives none", async () => {
    const prompt = "x".repeat(400);
    llm.setScript([{ text: "y".repeat(80) }]);
    const completion = await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: prompt }],
    });
    expect(completion.usage!.completion_tokens).toBe(20);
    // The serialised messages are a little longer than the prompt itself.
    expect(completion.usage!.prompt_tokens).toBeGreaterThanOrEqual(100);
    expect(completion.usage!.prompt_tokens).toBeLessThan(120);
  });

  it("records the body the SDK sent, with tool outputs in call order", async () => {
    llm.setScript([{ text: "done" }]);
    await client.chat.completions.create({
      model: "m",
      messages: [
        { role: "user", content: "go" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "c1", type: "function", function: { name: "read_file", arguments: "{}" } },
            { id: "c2", type: "function", function: { name: "read_file", arguments: "{}" } },
          ],
        },
        { role: "tool", tool_call_id: "c1", content: "first" },
        { role: "tool", tool_call_id: "c2", content: "second" },
      ],
    });
    const [request] = await llm.waitForRequests(1);
    expect(request).toMatchObject({
      method: "POST",
      path: "/v1/chat/completions",
      protocol: "openai-chat",
      stream: false,
      turnIndex: 0,
      outcome: "answered",
    });
    expect(request!.headers.authorization).toBe(`Bearer ${API_KEY}`);
    const body = request!.body as { messages: { role: string; tool_call_id?: string }[] };
    expect(body.messages.filter((m) => m.role === "tool").map((m) => m.tool_call_id)).toEqual(["c1", "c2"]);
  });
});
