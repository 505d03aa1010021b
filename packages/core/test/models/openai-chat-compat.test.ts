import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { userText } from "@penguin/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { createOpenAIChatModel } from "../../src/models/openai-chat.js";
import { collect, request } from "./helpers.js";

// Quirks of OpenAI-compatible servers that fake-llm does not script: served verbatim here.

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** Serves one Chat Completions stream made of these chunk deltas (and optional extra frames). */
async function serve(frames: unknown[], { done = true } = {}): Promise<string> {
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      for (const frame of frames) res.write(`data: ${JSON.stringify(frame)}\n\n`);
      if (done) res.write("data: [DONE]\n\n");
      res.end();
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}/v1`;
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  id: "c",
  object: "chat.completion.chunk",
  created: 0,
  model: "m",
  choices: [{ index: 0, delta, finish_reason: finish }],
});

function model(baseUrl: string) {
  return createOpenAIChatModel({ provider: "compat", modelId: "m", baseUrl, apiKey: "k" });
}

describe("OpenAI-compatible quirks", () => {
  it("reads thinking from `delta.reasoning` and records that field name", async () => {
    const url = await serve([
      chunk({ reasoning: "hmm " }),
      chunk({ reasoning: "ok" }),
      chunk({ content: "hi" }, "stop"),
    ]);
    const result = await collect(model(url), request({ messages: [userText("q")] }));
    expect(result.complete).toEqual([
      expect.objectContaining({
        type: "thinking",
        thinking: "hmm ok",
        fidelity: { wire: "openai-chat", reasoning_field: "reasoning" },
      }),
      expect.objectContaining({ type: "text", text: "hi" }),
    ]);
  });

  it("estimates usage when the server reports none", async () => {
    const url = await serve([chunk({ content: "x".repeat(40) }, "stop")]);
    const result = await collect(model(url), request({ messages: [userText("y".repeat(400))] }));
    expect(result.outcome.status).toBe("completed");
    expect(result.outcome.usage.output).toBe(10);
    expect(result.outcome.usage.total).toBeGreaterThan(110);
  });

  it("gives calls without ids session-unique ids", async () => {
    const url = await serve([
      chunk({ tool_calls: [{ index: 0, function: { name: "a", arguments: "{}" } }] }),
      chunk({ tool_calls: [{ index: 1, function: { name: "b", arguments: "{}" } }] }, "tool_calls"),
    ]);
    const result = await collect(model(url), request());
    const ids = result.complete.map((p) => (p as { tool_call_id: string }).tool_call_id);
    expect(new Set(ids).size).toBe(2);
    expect(result.complete.map((p) => (p as { name: string }).name)).toEqual(["a", "b"]);
  });

  it("splits calls that all reuse index 0 but carry their own ids", async () => {
    const url = await serve([
      chunk({ tool_calls: [{ index: 0, id: "x1", function: { name: "a", arguments: '{"n":1}' } }] }),
      chunk(
        { tool_calls: [{ index: 0, id: "x2", function: { name: "a", arguments: '{"n":2}' } }] },
        "tool_calls",
      ),
    ]);
    const result = await collect(model(url), request());
    expect(result.complete).toEqual([
      expect.objectContaining({ tool_call_id: "x1", arguments: '{"n":1}' }),
      expect.objectContaining({ tool_call_id: "x2", arguments: '{"n":2}' }),
    ]);
  });

  it("reports argument fragments for an already finished call as malformed", async () => {
    const url = await serve([
      chunk({ tool_calls: [{ index: 0, id: "x1", function: { name: "a", arguments: "{" } }] }),
      chunk({ tool_calls: [{ index: 1, id: "x2", function: { name: "b", arguments: "{}" } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: "}" } }] }, "tool_calls"),
    ]);
    const result = await collect(model(url), request());
    expect(result.outcome.status).toBe("malformed");
    expect(result.outcome.errorMessage).toContain("tool call 0");
  });

  it("reports a stream that ends without a finish reason as failed", async () => {
    const url = await serve([chunk({ content: "par" })], { done: false });
    const result = await collect(model(url), request());
    expect(result.outcome).toMatchObject({
      status: "failed",
      errorMessage: expect.stringContaining("ended before"),
    });
    expect(result.complete).toEqual([expect.objectContaining({ text: "par", stop_reason: "failed" })]);
  });

  it("reports an error object inside the stream as failed", async () => {
    const url = await serve([chunk({ content: "a" }), { error: { message: "upstream overloaded" } }]);
    const result = await collect(model(url), request());
    expect(result.outcome.status).toBe("failed");
    expect(result.outcome.errorMessage).toContain("upstream overloaded");
  });
});
