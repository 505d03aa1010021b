import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeLlm, type FakeLlmOptions, type FakeLlmScript, startFakeLlm } from "@penguin/fake-llm";
import type { OmniMessage } from "@penguin/protocol";
import { type SystemConfigInput, saveProjectConfig } from "@penguin/state";
import { ProjectConfigSchema } from "@penguin/state/schemas";
import { createAgent } from "../../src/sdk/agent.js";

export const MODEL = "fake/fake-model";

/** A real data root and workspace in a temp folder, and fake-llm serving OpenAI Chat over HTTP. */
export async function setup(
  script: FakeLlmScript,
  model: {
    context_window?: number;
    apiKey?: string;
    serverKey?: string;
    prices?: boolean;
    vision?: boolean;
    max_tokens?: number;
    /** The wire protocol fake-llm is spoken to in (default OpenAI Chat Completions). */
    api?: "openai" | "anthropic";
    /** Picks the turn for a request by its body (see fake-llm's `pick`). */
    pick?: FakeLlmOptions["pick"];
    /** The agent's configuration in code, instead of its system_config.yaml. */
    config?: SystemConfigInput;
  } = {},
) {
  const root = mkdtempSync(join(tmpdir(), "penguin-sdk-"));
  const dataRoot = join(root, "data");
  const workspaceDir = join(root, "workspace");
  mkdirSync(workspaceDir, { recursive: true });
  const llm: FakeLlm = await startFakeLlm({ script, apiKey: model.serverKey ?? "sk-test", pick: model.pick });
  await saveProjectConfig(
    dataRoot,
    ProjectConfigSchema.parse({
      models: [
        {
          provider: "fake",
          api: model.api ?? "openai",
          model_id: "fake-model",
          base_url: `${llm.url}/v1`,
          api_key: model.apiKey ?? "sk-test",
          context_window: model.context_window ?? 100_000,
          ...(model.prices ? { prices: { input_per_mtok: 2, output_per_mtok: 10 } } : {}),
          ...(model.vision ? { vision: true } : {}),
          ...(model.max_tokens !== undefined ? { max_tokens: model.max_tokens } : {}),
        },
      ],
    }),
  );
  const agent = await createAgent({
    dataRoot,
    logger: { warn: () => {} },
    ...(model.config ? { config: model.config } : {}),
  });
  return {
    root,
    dataRoot,
    workspaceDir,
    llm,
    agent,
    async cleanup() {
      await llm.close();
      // A process that has just ended may still have a write landing in the folder: retry what
      // such a racing write makes fail (for up to some 5 s on a loaded machine).
      rmSync(root, { recursive: true, force: true, maxRetries: 9, retryDelay: 100 });
    },
  };
}

export async function collect(iterable: AsyncIterable<OmniMessage>, onMessage?: (m: OmniMessage) => void) {
  const out: OmniMessage[] = [];
  for await (const message of iterable) {
    out.push(message);
    onMessage?.(message);
  }
  return out;
}

export function traceRecords(path: string): OmniMessage[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as OmniMessage);
}

/** `type` of an envelope's payload (or "session_meta"). */
export const kind = (m: OmniMessage) =>
  m.type === "session_meta" ? "session_meta" : (m.payload as { type: string }).type;

export const RETRY_FAST = { baseDelayMs: 1, maxDelayMs: 4 };

/** The chat messages fake-llm received in request `n`. */
export function chatMessages(
  llm: FakeLlm,
  n: number,
): { role: string; content?: unknown; tool_call_id?: string; tool_calls?: { id: string }[] }[] {
  return (llm.requests.filter((r) => r.protocol === "openai-chat")[n].body as { messages: [] }).messages;
}
