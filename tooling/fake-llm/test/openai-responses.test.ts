import OpenAI from "openai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeLlm, startFakeLlm } from "../src/index.js";

let llm: FakeLlm;
let client: OpenAI;

beforeEach(async () => {
  llm = await startFakeLlm();
  client = new OpenAI({ baseURL: `${llm.url}/v1`, apiKey: "sk-test", maxRetries: 0 });
});
afterEach(() => llm.close());

const tools = [
  { type: "function" as const, name: "read_file", parameters: { type: "object" }, strict: false },
  { type: "function" as const, name: "exec_command", parameters: { type: "object" }, strict: false },
];

describe("OpenAI Responses", () => {
  it("streams the documented event sequence with increasing sequence numbers", async () => {
    llm.setScript([{ text: "Hi there", chunk_size: 3 }]);
    const stream = client.responses.stream({ model: "gpt-test", input: "hello" });
    const events: { type: string; sequence_number: number }[] = [];
    for await (const event of stream) events.push(event);
    expect(events.map((e) => e.type)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const response = await stream.finalResponse();
    expect(response.output_text).toBe("Hi there");
    expect(response.status).toBe("completed");
    expect(response.model).toBe("gpt-test");
  });

  it("writes an event: line naming each event, as the API does", async () => {
    llm.setScript([{ text: "x" }]);
    const res = await fetch(`${llm.url}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", input: "q", stream: true }),
    });
    const wire = await res.text();
    expect(wire.startsWith("event: response.created\ndata: {")).toBe(true);
    expect(wire).toContain("event: response.output_text.delta\ndata: ");
    expect(wire).not.toContain("[DONE]");
  });

  it("streams thinking as a reasoning summary and keeps a signature as encrypted_content", async () => {
    llm.setScript([
      { thinking: "Reasoning step by step.", thinking_signature: "enc-abc", text: "Answer", chunk_size: 6 },
    ]);
    const stream = client.responses.stream({ model: "m", input: "q" });
    let summary = "";
    stream.on("response.reasoning_summary_text.delta", (event) => {
      summary += event.delta;
    });
    const response = await stream.finalResponse();
    expect(summary).toBe("Reasoning step by step.");
    const [reasoning, message] = response.output;
    expect(reasoning).toMatchObject({
      type: "reasoning",
      summary: [{ type: "summary_text", text: "Reasoning step by step." }],
      encrypted_content: "enc-abc",
    });
    expect(message).toMatchObject({ type: "message", content: [{ type: "output_text", text: "Answer" }] });
  });

  it("streams several function calls whose argument deltas the SDK reassembles", async () => {
    llm.setScript([
      {
        tool_calls: [
          { id: "call_a", name: "read_file", arguments: { path: "README.md" } },
          { id: "call_b", name: "exec_command", arguments: { cmd: "echo 'quoted \"text\"'" } },
        ],
        chunk_size: 5,
      },
    ]);
    const stream = client.responses.stream({ model: "m", input: "q", tools });
    const argumentDeltas: string[] = [];
    stream.on("response.function_call_arguments.delta", (event) => argumentDeltas.push(event.delta));
    const response = await stream.finalResponse();
    const calls = response.output.map((item) => {
      if (item.type !== "function_call") throw new Error(`unexpected item ${item.type}`);
      return { call_id: item.call_id, name: item.name, arguments: JSON.parse(item.arguments) };
    });
    expect(calls).toEqual([
      { call_id: "call_a", name: "read_file", arguments: { path: "README.md" } },
      { call_id: "call_b", name: "exec_command", arguments: { cmd: "echo 'quoted \"text\"'" } },
    ]);
    expect(argumentDeltas.length).toBeGreaterThan(4);
  });

  it("answers a non-streaming request with the completed response object", async () => {
    llm.setScript([{ text: "Plain.", tool_calls: [{ name: "read_file", arguments: { path: "a" } }] }]);
    const response = await client.responses.create({ model: "m", input: "q", tools });
    expect(response.object).toBe("response");
    expect(response.output_text).toBe("Plain.");
    expect(response.output[1]).toMatchObject({
      type: "function_call",
      call_id: "call_0_0",
      name: "read_file",
      arguments: '{"path":"a"}',
      status: "completed",
    });
  });

  it("reports usage in response.completed, cached tokens included in input_tokens", async () => {
    llm.setScript([
      {
        text: "ok",
        usage: { input_tokens: 10, output_tokens: 3, cache_read_tokens: 5, cache_write_tokens: 0 },
      },
    ]);
    const response = await client.responses.stream({ model: "m", input: "q" }).finalResponse();
    expect(response.usage).toMatchObject({
      input_tokens: 15,
      input_tokens_details: { cached_tokens: 5 },
      output_tokens: 3,
      total_tokens: 18,
    });
  });

  it("records the request body, function_call_output items in order", async () => {
    llm.setScript([{ text: "done" }]);
    await client.responses.create({
      model: "m",
      instructions: "be brief",
      input: [
        { type: "function_call", call_id: "c1", name: "read_file", arguments: "{}" },
        { type: "function_call", call_id: "c2", name: "read_file", arguments: "{}" },
        { type: "function_call_output", call_id: "c1", output: "one" },
        { type: "function_call_output", call_id: "c2", output: "two" },
      ],
    });
    const [request] = llm.requests;
    expect(request).toMatchObject({ path: "/v1/responses", protocol: "openai-responses", turnIndex: 0 });
    const body = request!.body as { instructions: string; input: { type: string; call_id: string }[] };
    expect(body.instructions).toBe("be brief");
    const outputs = body.input
      .filter((item) => item.type === "function_call_output")
      .map((item) => item.call_id);
    expect(outputs).toEqual(["c1", "c2"]);
  });
});
