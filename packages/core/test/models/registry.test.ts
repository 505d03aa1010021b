import { type FakeLlm, startFakeLlm } from "@penguin/fake-llm";
import { userText } from "@penguin/protocol";
import { ProjectConfigSchema } from "@penguin/state/schemas";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createModelAdapter, type ModelAdapterResult } from "../../src/models/registry.js";
import type { ModelAdapter } from "../../src/models/types.js";
import { collect, request, tempFile } from "./helpers.js";

let llm: FakeLlm;
beforeEach(async () => {
  llm = await startFakeLlm({ script: [{ text: "one" }, { text: "two" }] });
});
afterEach(() => llm.close());

function adapterOf(result: ModelAdapterResult): ModelAdapter {
  if (!result.ok) throw new Error(result.error);
  return result.adapter;
}

/** Which path of the fake server a provider's adapter calls. */
async function pathCalledBy(adapter: ModelAdapter): Promise<string> {
  const before = llm.requests.length;
  const result = await collect(adapter, request({ messages: [userText("hi")] }));
  expect(result.outcome.status).toBe("completed");
  return llm.requests[before]!.path;
}

describe("createModelAdapter", () => {
  it("picks the wire protocol from the provider table", async () => {
    const env = {};
    const v1 = `${llm.url}/v1`;
    const chat = adapterOf(createModelAdapter("openai/gpt-test", { apiKey: "k", baseUrl: v1, env }));
    expect(await pathCalledBy(chat)).toBe("/v1/chat/completions");
    const responses = adapterOf(
      createModelAdapter("openai-responses/gpt-test", { apiKey: "k", baseUrl: v1, env }),
    );
    expect(await pathCalledBy(responses)).toBe("/v1/responses");
    llm.setScript([{ text: "three" }]);
    const anthropic = adapterOf(
      createModelAdapter("anthropic/claude-test", { apiKey: "k", baseUrl: llm.url, env }),
    );
    expect(await pathCalledBy(anthropic)).toBe("/v1/messages");
    expect(anthropic.info).toMatchObject({ provider: "anthropic", modelId: "claude-test", vision: true });
  });

  it("sends max_completion_tokens to OpenAI and max_tokens to compatible vendors", async () => {
    const env = {};
    const openai = adapterOf(createModelAdapter("openai/m", { apiKey: "k", baseUrl: `${llm.url}/v1`, env }));
    await collect(openai, request({ maxTokens: 10 }));
    const deepseek = adapterOf(
      createModelAdapter("deepseek/m", { apiKey: "k", baseUrl: `${llm.url}/v1`, env }),
    );
    await collect(deepseek, request({ maxTokens: 10 }));
    expect(llm.requests[0]!.body).toMatchObject({ max_completion_tokens: 10 });
    expect(llm.requests[1]!.body).toMatchObject({ max_tokens: 10 });
  });

  it("takes an unknown provider's base URL and key from <PROVIDER>_BASE_URL / _API_KEY", async () => {
    const env = { MY_VENDOR_BASE_URL: `${llm.url}/v1`, MY_VENDOR_API_KEY: "sk-vendor" };
    const adapter = adapterOf(createModelAdapter("my-vendor/some/model", { env }));
    expect(adapter.info).toMatchObject({ provider: "my-vendor", modelId: "some/model", vision: false });
    expect(await pathCalledBy(adapter)).toBe("/v1/chat/completions");
    expect(llm.requests[0]!.headers.authorization).toBe("Bearer sk-vendor");
    expect(llm.requests[0]!.body).toMatchObject({ model: "some/model" });
  });

  it("reads key, base URL, wire protocol and context window from the project's model entry", async () => {
    const project = ProjectConfigSchema.parse({
      models: [
        {
          provider: "corp",
          model_id: "claude-x",
          api: "anthropic",
          base_url: llm.url,
          api_key_env: "CORP_TOKEN",
          context_window: 64000,
          vision: true,
        },
      ],
    });
    const adapter = adapterOf(createModelAdapter("corp/claude-x", { project, env: { CORP_TOKEN: "t" } }));
    expect(adapter.info).toEqual({
      provider: "corp",
      modelId: "claude-x",
      contextWindow: 64000,
      vision: true,
    });
    expect(await pathCalledBy(adapter)).toBe("/v1/messages");

    // A remote server needs a key (a loopback one is taken to be a local server that needs none).
    const missing = createModelAdapter("corp/claude-x", {
      project,
      env: {},
      baseUrl: "https://corp.example",
    });
    expect(missing).toEqual({
      ok: false,
      error: 'no API key for provider "corp": set CORP_TOKEN (or api_key in the project config)',
    });
  });

  it("returns an error naming the variable when a key or base URL is missing", () => {
    expect(createModelAdapter("openai/gpt-5", { env: {} })).toEqual({
      ok: false,
      error: 'no API key for provider "openai": set OPENAI_API_KEY (or api_key in the project config)',
    });
    expect(createModelAdapter("acme/model", { env: {} })).toEqual({
      ok: false,
      error: 'no base URL for provider "acme": set ACME_BASE_URL (or base_url in the project config)',
    });
    expect(
      createModelAdapter("acme/model", { env: { ACME_BASE_URL: "https://acme.example/v1" } }),
    ).toMatchObject({
      ok: false,
      error: expect.stringContaining("set ACME_API_KEY"),
    });
    expect(createModelAdapter("not a ref", {})).toMatchObject({ ok: false });
  });

  it("needs no key for local servers", async () => {
    const ollama = createModelAdapter("ollama/llama3", { env: {} });
    expect(ollama.ok).toBe(true);
    const local = adapterOf(createModelAdapter("lab/model", { env: { LAB_BASE_URL: `${llm.url}/v1` } }));
    expect(await pathCalledBy(local)).toBe("/v1/chat/completions");
  });

  it("opens replay cassettes and reports invalid ones as an error result", async () => {
    const file = tempFile("c.yaml", "turns:\n  - text: replayed\n");
    const replay = adapterOf(createModelAdapter(`replay:${file}`));
    expect(replay.info).toMatchObject({ provider: "replay", modelId: file, vision: false });
    const result = await collect(replay, request());
    expect(result.complete).toEqual([expect.objectContaining({ text: "replayed" })]);

    const bad = tempFile("bad.yaml", "turns:\n  - error: { status: 99 }\n");
    const failed = createModelAdapter({ provider: "replay", modelId: bad });
    expect(failed.ok).toBe(false);
    expect(!failed.ok && failed.error).toContain(`${bad}:2:`);
  });
});
