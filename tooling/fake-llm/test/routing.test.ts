import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeLlm, startFakeLlm } from "../src/index.js";

let llm: FakeLlm | undefined;
afterEach(() => llm?.close());

describe("fake server routes and bookkeeping", () => {
  it("lists models in OpenAI's shape, readable by both SDKs", async () => {
    llm = await startFakeLlm({ models: ["model-a", "model-b"] });
    const openai = new OpenAI({ baseURL: `${llm.url}/v1`, apiKey: "k", maxRetries: 0 });
    const ids: string[] = [];
    for await (const model of openai.models.list()) ids.push(model.id);
    expect(ids).toEqual(["model-a", "model-b"]);
    const anthropic = new Anthropic({ baseURL: llm.url, apiKey: "k", maxRetries: 0 });
    const page = await anthropic.models.list();
    expect(page.data.map((model) => model.id)).toEqual(["model-a", "model-b"]);
    expect(llm.requests.map((r) => [r.protocol, r.turnIndex])).toEqual([
      ["models", null],
      ["models", null],
    ]);
  });

  it("accepts the key as x-api-key as well as a bearer token", async () => {
    llm = await startFakeLlm({ apiKey: "secret", script: [{ text: "a" }] });
    const res = await fetch(`${llm.url}/v1/models`, { headers: { "x-api-key": "secret" } });
    expect(res.status).toBe(200);
    const denied = await fetch(`${llm.url}/v1/models`, { headers: { "anthropic-version": "2023-06-01" } });
    expect(denied.status).toBe(401);
    expect(await denied.json()).toEqual({
      type: "error",
      error: { type: "authentication_error", message: expect.stringContaining("invalid API key") },
    });
  });

  it("answers an unknown path with 404 naming the served routes, consuming no turn", async () => {
    llm = await startFakeLlm({ script: [{ text: "a" }] });
    const res = await fetch(`${llm.url}/v1/completions`, { method: "POST", body: "{}" });
    expect(res.status).toBe(404);
    const body = (await res.json()) as { error: { message: string } };
    expect(body.error.message).toContain("POST /v1/chat/completions");
    expect(llm.turnsConsumed).toBe(0);
  });

  it("answers a body that is not JSON with 400, consuming no turn", async () => {
    llm = await startFakeLlm({ script: [{ text: "a" }] });
    const res = await fetch(`${llm.url}/v1/messages`, { method: "POST", body: "{not json" });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
    expect(llm.requests[0]).toMatchObject({ outcome: "invalid_json", rawBody: "{not json", body: undefined });
    expect(llm.turnsConsumed).toBe(0);
  });

  it("consumes turns in order across protocols, and setScript starts over", async () => {
    llm = await startFakeLlm({ script: [{ text: "first" }, { text: "second" }] });
    const openai = new OpenAI({ baseURL: `${llm.url}/v1`, apiKey: "k", maxRetries: 0 });
    const anthropic = new Anthropic({ baseURL: llm.url, apiKey: "k", maxRetries: 0 });
    const chat = await openai.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "q" }],
    });
    const message = await anthropic.messages.create({
      model: "m",
      max_tokens: 10,
      messages: [{ role: "user", content: "q" }],
    });
    expect(chat.choices[0]!.message.content).toBe("first");
    expect(message.content[0]).toMatchObject({ text: "second" });
    llm.setScript({ turns: [{ text: "again" }] });
    const response = await openai.responses.create({ model: "m", input: "q" });
    expect(response.output_text).toBe("again");
    expect(llm.requests.map((r) => [r.protocol, r.turnIndex])).toEqual([
      ["openai-chat", 0],
      ["anthropic-messages", 1],
      ["openai-responses", 0],
    ]);
  });

  it("answers a request the test picks by its body with the picked turn, leaving the script where it was", async () => {
    llm = await startFakeLlm({
      script: [{ text: "scripted" }],
      pick: (body) => (JSON.stringify(body).includes("summarize") ? { text: "picked" } : undefined),
    });
    const openai = new OpenAI({ baseURL: `${llm.url}/v1`, apiKey: "k", maxRetries: 0 });
    const ask = async (content: string) =>
      (await openai.chat.completions.create({ model: "m", messages: [{ role: "user", content }] }))
        .choices[0]!.message.content;
    expect(await ask("please summarize")).toBe("picked");
    expect(await ask("q")).toBe("scripted");
    expect(await ask("summarize again")).toBe("picked");
    expect(llm.requests.map((r) => r.turnIndex)).toEqual([null, 0, null]);
    expect(llm.turnsConsumed).toBe(1);
  });

  it("waitForRequests resolves when requests arrive and rejects with a count after its timeout", async () => {
    llm = await startFakeLlm({ script: [{ text: "a" }] });
    const waiting = llm.waitForRequests(1);
    await fetch(`${llm.url}/v1/models`);
    expect((await waiting).map((r) => r.path)).toEqual(["/v1/models"]);
    await expect(llm.waitForRequests(3, { timeoutMs: 50 })).rejects.toThrow(/for 3 request\(s\), received 1/);
  });

  it("close() ends a stalled stream instead of waiting for it", async () => {
    llm = await startFakeLlm({ script: [{ text: "abcdef", chunk_size: 2, stall: { after_chunks: 1 } }] });
    const res = await fetch(`${llm.url}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m", messages: [], stream: true }),
    });
    const reading = res.text();
    await llm.close();
    await expect(reading).rejects.toThrow();
  });
});
