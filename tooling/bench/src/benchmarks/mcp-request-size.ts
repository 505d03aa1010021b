import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { allowAll, createAgent } from "@penguin/core";
import { startFakeLlm } from "@penguin/fake-llm";
import type { McpServer } from "@penguin/state";
import type { Benchmark } from "../benchmark.js";
import { FAKE_MODEL, useFakeModel } from "../fake-model.js";
import { MCP_TOOL_SERVER_SOURCE, TOOLS_PER_SERVER } from "../mcp-tool-server.js";
import type { BenchRow } from "../table.js";
import { makeBenchDirs } from "../workdir.js";

// "Measure the first-request bytes with 1, 3 and 9 servers": the first request body of a default
// session with that many MCP servers (each with ordinary tools), as fake-llm received it, with
// every schema sent (`deferLoading: never`) and with the compact catalog (`deferLoading: always`).

const SERVER_COUNTS = [1, 3, 9] as const;
/** --quick proves the benchmark runs: one server only. */
const QUICK_SERVER_COUNTS = [1] as const;
const MODES = ["never", "always"] as const;
type Mode = (typeof MODES)[number];

interface ChatBody {
  tools?: unknown[];
}

async function firstRequest(serverCount: number, mode: Mode): Promise<{ bytes: number; tools: number }> {
  const dirs = makeBenchDirs("mcp-request-size");
  const llm = await startFakeLlm({ script: [{ text: "Hi." }] });
  try {
    await useFakeModel(dirs.dataRoot, llm.url);
    const serverFile = join(dirs.root, "mcp-tool-server.mjs");
    writeFileSync(serverFile, MCP_TOOL_SERVER_SOURCE);
    const mcpServers: McpServer[] = Array.from({ length: serverCount }, (_, i) => ({
      name: `service${i + 1}`,
      config: {
        transport: "stdio",
        command: process.execPath,
        args: [serverFile, String(i + 1)],
        connectTimeoutMs: 20_000,
        permission: "auto",
      },
    }));
    const agent = await createAgent({
      dataRoot: dirs.dataRoot,
      config: { tools: { mcpServers, mcpToolBudget: { deferLoading: mode } } },
      logger: { warn: () => {} },
    });
    const session = await agent.createSession({ workspaceDir: dirs.workspace, model: FAKE_MODEL });
    try {
      for await (const _ of session.run("Hello.", { approve: allowAll })) {
        // Only the request matters; the answer is drained so the task ends cleanly.
      }
    } finally {
      await session.dispose();
    }
    const [first] = await llm.waitForRequests(1);
    const tools = (first.body as ChatBody).tools?.length ?? 0;
    return { bytes: Buffer.byteLength(first.rawBody, "utf8"), tools };
  } finally {
    await llm.close();
    dirs.cleanup();
  }
}

export const mcpRequestSize: Benchmark = {
  name: "mcp_request_size",
  summary: `bytes of the first request with 1, 3 and 9 MCP servers (${TOOLS_PER_SERVER} tools each), all schemas vs deferred loading`,
  async run(options): Promise<BenchRow[]> {
    const rows: BenchRow[] = [];
    for (const servers of options.quick ? QUICK_SERVER_COUNTS : SERVER_COUNTS) {
      const sizes: Record<Mode, number> = { never: 0, always: 0 };
      for (const mode of MODES) {
        const { bytes, tools } = await firstRequest(servers, mode);
        sizes[mode] = bytes;
        const how = mode === "never" ? "all schemas" : "deferred";
        rows.push({
          benchmark: this.name,
          metric: `${servers} server${servers === 1 ? "" : "s"}, ${how} (${tools} tools sent)`,
          value: bytes,
          unit: "bytes",
        });
      }
      rows.push({
        benchmark: this.name,
        metric: `${servers} server${servers === 1 ? "" : "s"}, deferred / all schemas`,
        value: sizes.always / sizes.never,
        unit: "ratio",
      });
    }
    return rows;
  },
};
