import { randomUUID } from "node:crypto";
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { collect, MODEL, mcpSetup, outputsById, RETRY_FAST } from "./support.js";

// An MCP server whose tool has a parameters schema that does not compile: the call is answered
// with a message that puts the fault on the server (the agent's configuration cannot fix it), and
// the server's other tools still work. The server speaks streamable HTTP on 127.0.0.1.

async function startServerWithBrokenSchema() {
  const mcp = new Server(
    { name: "penguin-broken-schema", version: "1.0.0" },
    { capabilities: { tools: {} } },
  );
  const calls: string[] = [];
  mcp.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      {
        name: "count",
        description: "Counts up to n.",
        // `minimum` must be a number: the schema does not compile.
        inputSchema: { type: "object", properties: { n: { type: "integer", minimum: "zero" } } },
      },
      { name: "ping", description: "Answers pong.", inputSchema: { type: "object" } },
    ],
  }));
  mcp.setRequestHandler(CallToolRequestSchema, async (request) => {
    calls.push(request.params.name);
    return { content: [{ type: "text", text: request.params.name === "ping" ? "pong" : "counted" }] };
  });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
  await mcp.connect(transport);
  const server: HttpServer = createServer((req, res) => void transport.handleRequest(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    calls,
    async close() {
      await mcp.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("an MCP tool whose parameters schema does not compile", () => {
  it("is answered with a message that says the schema came from its MCP server; the call never reaches it", async () => {
    const remote = await startServerWithBrokenSchema();
    cleanups.push(remote.close);
    const env = await mcpSetup(
      [
        {
          tool_calls: [
            { id: "c", name: "mcp__brk__count", arguments: { n: 3 } },
            { id: "p", name: "mcp__brk__ping", arguments: {} },
          ],
        },
        { text: "done" },
      ],
      [{ name: "brk", config: { transport: "http", url: remote.url } } as never],
    );
    cleanups.push(env.cleanup);
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    const outputs = outputsById(await collect(session.run("Count.", { approve: allowAll })));
    await session.dispose();

    const counted = outputs.get("c");
    expect(counted?.stop_reason).toBe("failed");
    expect(counted?.output).toMatch(
      /^The mcp__brk__count tool cannot run: the parameters schema its MCP server gave for it is invalid \(.*minimum.*\)\.$/,
    );
    expect(counted?.output).not.toContain("agent's configuration");
    expect(outputs.get("p")).toMatchObject({ stop_reason: "completed", output: "pong" });
    expect(remote.calls).toEqual(["ping"]);
  });
});
