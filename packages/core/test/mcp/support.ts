import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type FakeLlm, type FakeLlmScript, startFakeLlm } from "@penguin/fake-llm";
import type { OmniMessage } from "@penguin/protocol";
import { type McpServer, saveProjectConfig } from "@penguin/state";
import { ProjectConfigSchema } from "@penguin/state/schemas";
import { createAgent } from "../../src/sdk/agent.js";

export { chatMessages, collect, kind, MODEL, RETRY_FAST, traceRecords } from "../sdk/fixtures.js";

/** The MCP server of the resource and deferred-loading tests (stdio): `--tools N`, `--resources`. */
export const CATALOG_SERVER = resolve(import.meta.dirname, "fixtures/catalog-server.mjs");

/** The test MCP server (stdio), run with this Node. */
export const TEST_SERVER = resolve(import.meta.dirname, "fixtures/test-server.mjs");

type StdioExtra = Partial<
  Omit<Extract<McpServer["config"], { transport: "stdio" }>, "transport" | "command">
>;

export function stdioServer(name: string, extra: StdioExtra = {}, serverArgs: string[] = []): McpServer {
  return {
    name,
    config: {
      transport: "stdio",
      command: process.execPath,
      args: [TEST_SERVER, ...serverArgs],
      connectTimeoutMs: 10_000,
      permission: "auto",
      ...extra,
    },
  } as McpServer;
}

/**
 * fake-llm (OpenAI Chat over HTTP), a data root, a workspace and an agent whose
 * `tools.mcpServers` are `servers`; the agent's warnings are kept.
 */
export async function mcpSetup(
  script: FakeLlmScript,
  servers: McpServer[],
  options: { vision?: boolean; tools?: Record<string, unknown> } = {},
) {
  const root = mkdtempSync(join(tmpdir(), "penguin-mcp-"));
  const dataRoot = join(root, "data");
  const workspaceDir = join(root, "workspace");
  const scratch = join(root, "scratch");
  mkdirSync(workspaceDir, { recursive: true });
  mkdirSync(scratch, { recursive: true });
  const llm: FakeLlm = await startFakeLlm({ script, apiKey: "sk-test" });
  await saveProjectConfig(
    dataRoot,
    ProjectConfigSchema.parse({
      models: [
        {
          provider: "fake",
          api: "openai",
          model_id: "fake-model",
          base_url: `${llm.url}/v1`,
          api_key: "sk-test",
          context_window: 100_000,
          vision: options.vision ?? false,
        },
      ],
    }),
  );
  const warnings: string[] = [];
  const agent = await createAgent({
    dataRoot,
    config: { tools: { mcpServers: servers, ...options.tools } },
    logger: { warn: (line) => warnings.push(line) },
  });
  return {
    root,
    dataRoot,
    workspaceDir,
    scratch,
    llm,
    agent,
    warnings,
    async cleanup() {
      await llm.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

export const payloadOf = <T = Record<string, unknown>>(m: OmniMessage) => m.payload as T;

/** The complete outputs of a run, by tool call id. */
export function outputsById(messages: OmniMessage[]) {
  const outputs = new Map<string, { output: string; stop_reason: string; images?: string[] }>();
  for (const m of messages) {
    if (m.type === "model_msg" && m.payload.type === "tool_call_output") {
      const p = m.payload as { tool_call_id: string; output: string; stop_reason: string; images?: string[] };
      outputs.set(p.tool_call_id, p);
    }
  }
  return outputs;
}

/** Whether a process with this pid is alive. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function readPid(file: string): number {
  return Number(readFileSync(file, "utf8"));
}

/** Waits until `check` holds (bounded), for things that happen after a process exits. */
export async function eventually(check: () => boolean, ms = 10_000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return check();
}

/** One scripted tool call of the fake model. */
export const call = (id: string, name: string, args: Record<string, unknown> = {}) => ({
  id,
  name,
  arguments: args,
});
