import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { ToolSpec } from "@penguin/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { readOnly } from "../../src/approval/policies.js";
import { REDACTED_MARKER } from "../../src/environment/markers.js";
import {
  call,
  collect,
  kind,
  MODEL,
  mcpSetup,
  outputsById,
  payloadOf,
  RETRY_FAST,
  traceRecords,
} from "./support.js";

/** An MCP server over streamable HTTP on 127.0.0.1, from the SDK's server side. */
async function startHttpServer() {
  const mcp = new McpServer({ name: "penguin-http-test", version: "1.0.0" });
  mcp.registerTool(
    "search",
    {
      description: "Search the docs.",
      inputSchema: { query: z.string() },
      annotations: { readOnlyHint: true },
    },
    async ({ query }) => ({ content: [{ type: "text", text: `results for ${query}` }] }),
  );
  mcp.registerTool("whoami", { description: "Who is calling." }, async (extra) => ({
    content: [{ type: "text", text: `auth=${extra.requestInfo?.headers.authorization}` }],
  }));
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
  await mcp.connect(transport);
  const authorizations: (string | undefined)[] = [];
  const server: Server = createServer((req, res) => {
    authorizations.push(req.headers.authorization);
    void transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    authorizations,
    async close() {
      await mcp.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An MCP server over the older HTTP+SSE transport (GET /sse, POST /messages), one McpServer per stream. */
async function startSseServer() {
  const streams = new Map<string, SSEServerTransport>();
  const servers: McpServer[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (req.method === "GET" && url.pathname === "/sse") {
      const mcp = new McpServer({ name: "penguin-sse-test", version: "1.0.0" });
      mcp.registerTool(
        "ping",
        { description: "Answers pong.", annotations: { readOnlyHint: true } },
        async () => ({ content: [{ type: "text", text: "pong" }] }),
      );
      const transport = new SSEServerTransport("/messages", res);
      streams.set(transport.sessionId, transport);
      servers.push(mcp);
      void mcp.connect(transport);
      return;
    }
    const transport = streams.get(url.searchParams.get("sessionId") ?? "");
    if (req.method === "POST" && transport) {
      void transport.handlePostMessage(req, res);
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/sse`,
    async close() {
      await Promise.all(servers.map((mcp) => mcp.close()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A loopback port that nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("MCP over streamable HTTP", () => {
  it("connects to an HTTP server with its headers, offers its tools and runs calls; header values are redacted", async () => {
    const remote = await startHttpServer();
    cleanups.push(remote.close);
    const token = "secret-token-0123456789";
    const env = await mcpSetup(
      [
        {
          tool_calls: [
            call("s", "mcp__remote__search", { query: "penguins" }),
            call("w", "mcp__remote__whoami"),
          ],
        },
        { text: "Found." },
      ],
      [
        {
          name: "remote",
          config: { transport: "http", url: remote.url, headers: { Authorization: `Bearer ${token}` } },
        } as never,
      ],
    );
    cleanups.push(env.cleanup);
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    const asked: string[] = [];
    const yielded = await collect(
      session.run("Search.", {
        approve: readOnly(async (c) => {
          asked.push(c.payload.name);
          return "allow";
        }),
      }),
    );
    await session.dispose();

    const end = payloadOf<{ status: string; results: Record<string, unknown>[] }>(
      yielded.find((m) => kind(m) === "mcp_connect_end")!,
    );
    expect(end.status).toBe("completed");
    expect(end.results[0]).toMatchObject({
      server: "remote",
      transport: "http",
      status: "completed",
      tools: ["mcp__remote__search", "mcp__remote__whoami"],
    });
    const tools = payloadOf<{ tools: ToolSpec[] }>(
      yielded.filter((m) => kind(m) === "tool_list_ready").at(-1)!,
    ).tools;
    const search = tools.find((t) => t.name === "mcp__remote__search");
    expect(search).toMatchObject({ description: "Search the docs.", permission: "r" });
    expect(search?.parameters).toMatchObject({ type: "object", properties: { query: { type: "string" } } });
    expect(tools.find((t) => t.name === "mcp__remote__whoami")?.permission).toBe("rw");
    expect(asked).toEqual(["mcp__remote__whoami"]);

    const outputs = outputsById(yielded);
    expect(outputs.get("s")).toMatchObject({ output: "results for penguins", stop_reason: "completed" });
    expect(outputs.get("w")?.output).toBe(`auth=${REDACTED_MARKER}`);
    // Every request to the server carried the configured header.
    expect(remote.authorizations.length).toBeGreaterThan(2);
    expect(new Set(remote.authorizations)).toEqual(new Set([`Bearer ${token}`]));
    expect(JSON.stringify(traceRecords(session.tracePath))).not.toContain(token);
    expect(JSON.stringify(env.llm.requests.map((r) => r.body))).not.toContain(token);
  });

  it("connects to a server over the older HTTP+SSE transport", async () => {
    const remote = await startSseServer();
    cleanups.push(remote.close);
    const env = await mcpSetup(
      [{ tool_calls: [call("p", "mcp__legacy__ping")] }, { text: "Pong." }],
      [{ name: "legacy", config: { transport: "sse", url: remote.url } } as never],
    );
    cleanups.push(env.cleanup);
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    const yielded = await collect(session.run("Ping.", { approve: readOnly(async () => "deny") }));
    await session.dispose();
    const end = payloadOf<{ results: Record<string, unknown>[] }>(
      yielded.find((m) => kind(m) === "mcp_connect_end")!,
    );
    expect(end.results[0]).toMatchObject({
      server: "legacy",
      transport: "sse",
      status: "completed",
      tools: ["mcp__legacy__ping"],
    });
    // Read-only hint, read-only mode: it ran without asking.
    expect(outputsById(yielded).get("p")).toMatchObject({ output: "pong", stop_reason: "completed" });
  });

  it("skips an HTTP server that refuses the connection, with the reason", async () => {
    const port = await closedPort();
    const env = await mcpSetup(
      [{ text: "Without it." }],
      [{ name: "down", config: { transport: "http", url: `http://127.0.0.1:${port}/mcp` } } as never],
    );
    cleanups.push(env.cleanup);
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    const yielded = await collect(session.run("Go.", { approve: readOnly(async () => "deny") }));
    await session.dispose();
    const end = payloadOf<{ status: string; results: Record<string, unknown>[] }>(
      yielded.find((m) => kind(m) === "mcp_connect_end")!,
    );
    expect(end.status).toBe("failed");
    expect(end.results[0]).toMatchObject({ server: "down", transport: "http", status: "failed" });
    expect(String(end.results[0].error)).toContain("ECONNREFUSED");
    expect(env.warnings).toEqual([`agent default: MCP server "down" skipped: ${end.results[0].error}`]);
    expect(payloadOf(yielded.at(-1)!)).toMatchObject({ type: "task_end", status: "completed" });
  });
});
