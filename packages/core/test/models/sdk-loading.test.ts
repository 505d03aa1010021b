import { execFile } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

// The provider SDKs are imported on an adapter's first request, not with the package. These
// tests run the built package in a fresh Node process whose module resolution cannot find them.

const DIST = pathToFileURL(join(import.meta.dirname, "../../dist/index.js")).href;
const HIDE_PACKAGES = join(import.meta.dirname, "fixtures/hide-packages.mjs");

interface StreamResult {
  outcome: { status: string; errorMessage?: string; permanent?: boolean };
  yielded: string[];
}

/** A port on 127.0.0.1 that nothing listens on (it was free a moment ago). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Imports the package, creates one adapter per wire protocol and streams one request on each. */
async function streamWithout(hidden: string[]): Promise<Record<string, StreamResult>> {
  const baseUrl = `http://127.0.0.1:${await closedPort()}/v1`;
  const script = `
    const core = await import(${JSON.stringify(DIST)});
    const connection = { provider: "p", modelId: "m", baseUrl: ${JSON.stringify(baseUrl)}, apiKey: "k" };
    const adapters = {
      chat: core.createOpenAIChatModel(connection),
      responses: core.createOpenAIResponsesModel(connection),
      anthropic: core.createAnthropicMessagesModel(connection),
    };
    const results = {};
    for (const [name, adapter] of Object.entries(adapters)) {
      const generator = adapter.stream({ systemPrompt: "s", messages: [], tools: [], thinkingLevel: "none" });
      const yielded = [];
      let next = await generator.next();
      while (!next.done) {
        yielded.push(next.value.payload.type);
        next = await generator.next();
      }
      results[name] = { outcome: next.value, yielded };
    }
    console.log(JSON.stringify(results));
  `;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--import", HIDE_PACKAGES, "--input-type=module", "-e", script],
    { env: { ...process.env, PENGUIN_TEST_HIDE: hidden.join(",") } },
  );
  return JSON.parse(stdout.trim().split("\n").pop() ?? "{}");
}

describe("loading the provider SDKs", () => {
  it("an SDK that cannot be loaded fails the request with a clear, permanent outcome; nothing throws", async () => {
    // Importing the package and creating the adapters works without either SDK: neither is
    // imported before a request is sent.
    const results = await streamWithout(["openai", "@anthropic-ai/sdk"]);
    for (const name of ["chat", "responses"]) {
      expect(results[name]).toEqual({
        outcome: expect.objectContaining({ status: "failed", permanent: true }),
        yielded: [],
      });
      expect(results[name]?.outcome.errorMessage).toMatch(
        /^cannot load the provider SDK "openai" \(Cannot find package 'openai' \(hidden by the test\)\); reinstall Penguin/,
      );
    }
    expect(results.anthropic?.outcome).toMatchObject({ status: "failed", permanent: true });
    expect(results.anthropic?.outcome.errorMessage).toMatch(
      /^cannot load the provider SDK "@anthropic-ai\/sdk"/,
    );
  });

  it("an adapter needs only its own SDK", async () => {
    // Without Anthropic's SDK the OpenAI adapters reach the (closed) port: a connection failure.
    const results = await streamWithout(["@anthropic-ai/sdk"]);
    expect(results.chat?.outcome.status).toBe("failed");
    // The message names the address, the error code and the settings to check.
    for (const name of ["chat", "responses"]) {
      expect(results[name]?.outcome.errorMessage).toMatch(
        /^cannot reach p at http:\/\/127\.0\.0\.1:\d+\/v1 \(ECONNREFUSED\): check that it is running and the model's base_url in the project config, or P_BASE_URL/,
      );
    }
    expect(results.anthropic?.outcome.errorMessage).toMatch(
      /^cannot load the provider SDK "@anthropic-ai\/sdk"/,
    );
  });
});
