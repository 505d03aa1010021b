import { allowAll, createAgent } from "@penguin/core";
import { ESTIMATED_CHARS_PER_TOKEN, startFakeLlm } from "@penguin/fake-llm";
import type { Benchmark } from "../benchmark.js";
import { FAKE_MODEL, useFakeModel } from "../fake-model.js";
import type { BenchRow } from "../table.js";
import { makeBenchDirs } from "../workdir.js";

// What the default toolset and system prompt add to every request: the first request body of a
// default session (default agent, default tools), as fake-llm received it over HTTP.

const PROMPT = "Hello.";

interface ChatBody {
  messages?: { role: string; content: unknown }[];
  tools?: unknown[];
}

const bytesOf = (text: string) => Buffer.byteLength(text, "utf8");
const textOf = (content: unknown) => (typeof content === "string" ? content : JSON.stringify(content ?? ""));

export const requestSize: Benchmark = {
  name: "request_size",
  summary: "bytes of system prompt and tool schemas in the first request of a default session",
  async run(): Promise<BenchRow[]> {
    const dirs = makeBenchDirs("request-size");
    const llm = await startFakeLlm({ script: [{ text: "Hi." }] });
    try {
      await useFakeModel(dirs.dataRoot, llm.url);
      const agent = await createAgent({ dataRoot: dirs.dataRoot, logger: { warn: () => {} } });
      const session = await agent.createSession({ workspaceDir: dirs.workspace, model: FAKE_MODEL });
      try {
        for await (const _ of session.run(PROMPT, { approve: allowAll })) {
          // Only the request matters; the answer is drained so the task ends cleanly.
        }
      } finally {
        await session.dispose();
      }
      const [first] = await llm.waitForRequests(1);
      const body = first.body as ChatBody;
      const system = body.messages?.find((message) => message.role === "system");
      if (!system || !Array.isArray(body.tools)) {
        throw new Error(
          `the first request has no system message or no tools: ${first.rawBody.slice(0, 300)}`,
        );
      }
      const systemText = textOf(system.content);
      const toolsText = JSON.stringify(body.tools);
      // "an estimated token count at 4 chars/token", the same estimate fake-llm reports as usage.
      const tokens = (text: string) => Math.round(text.length / ESTIMATED_CHARS_PER_TOKEN);
      return [
        { benchmark: this.name, metric: "system prompt", value: bytesOf(systemText), unit: "bytes" },
        {
          benchmark: this.name,
          metric: `tools JSON (${body.tools.length} tools)`,
          value: bytesOf(toolsText),
          unit: "bytes",
        },
        {
          benchmark: this.name,
          metric: "whole first request body",
          value: bytesOf(first.rawBody),
          unit: "bytes",
        },
        {
          benchmark: this.name,
          metric: "system prompt, estimated",
          value: tokens(systemText),
          unit: "tokens",
        },
        { benchmark: this.name, metric: "tools, estimated", value: tokens(toolsText), unit: "tokens" },
        {
          benchmark: this.name,
          metric: "whole body, estimated",
          value: tokens(first.rawBody),
          unit: "tokens",
        },
      ];
    } finally {
      await llm.close();
      dirs.cleanup();
    }
  },
};
