import type { OmniMessage, ToolSpec } from "@penguin/protocol";
import type { McpServer } from "@penguin/state";
import { describe, expect, it } from "vitest";
import { allowAll, readOnly } from "../../src/approval/policies.js";
import { createAgent } from "../../src/sdk/agent.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";
import {
  CATALOG_SERVER,
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

const start = cleanedUpAfterEach(mcpSetup);

function toolServer(name: string, toolCount: number): McpServer {
  return {
    name,
    config: {
      transport: "stdio",
      command: process.execPath,
      args: [CATALOG_SERVER, "--tools", String(toolCount)],
      connectTimeoutMs: 20_000,
      permission: "auto",
    },
  } as McpServer;
}

interface SentTool {
  function: { name: string; description: string; parameters: Record<string, unknown> };
}
const sentTools = (body: unknown) => ((body as { tools?: SentTool[] }).tools ?? []).map((t) => t.function);
const sentNames = (body: unknown) => sentTools(body).map((t) => t.name);
const toolLists = (messages: readonly OmniMessage[]) =>
  messages.filter((m) => kind(m) === "tool_list_ready").map((m) => payloadOf<{ tools: ToolSpec[] }>(m).tools);

describe("deferred loading of MCP tools", () => {
  it("lists MCP tools past the threshold in a compact catalog, and load_mcp_tools adds their schemas to the next request", async () => {
    const env = await start(
      [
        { tool_calls: [call("load", "load_mcp_tools", { names: ["mcp__big__tool_3", "mcp__big__nope"] })] },
        { tool_calls: [call("use", "mcp__big__tool_3", { query: "penguins" })] },
        { text: "Done." },
      ],
      [toolServer("big", 50)],
    );
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    const yielded = await collect(session.run("Search.", { approve: allowAll }));
    const offeredAfter = session.tools.map((tool) => tool.name);
    await session.dispose();

    const [first, second, third] = await env.llm.waitForRequests(3);
    // The first request: no MCP schema at all, the catalog in load_mcp_tools' description.
    expect(sentNames(first.body).filter((name) => name.startsWith("mcp__"))).toEqual([]);
    const loader = sentTools(first.body).find((tool) => tool.name === "load_mcp_tools");
    expect(loader).toBeDefined();
    const catalogLines = loader!.description.split("\n").filter((line) => line.startsWith("- mcp__big__"));
    expect(catalogLines).toHaveLength(50);
    expect(catalogLines[2]).toBe(
      "- mcp__big__tool_3: Generated tool number 3: searches the records of collection 3 and returns the matches.",
    );
    expect(loader!.description).not.toContain("Second line");
    // After loading: tool_3 with its schema, and nothing else of the server.
    expect(sentNames(second.body).filter((name) => name.startsWith("mcp__"))).toEqual(["mcp__big__tool_3"]);
    const schema = sentTools(second.body).find((tool) => tool.name === "mcp__big__tool_3")!.parameters;
    expect(schema).toMatchObject({ required: ["query"] });
    expect(sentNames(third.body)).toEqual(sentNames(second.body));
    // The loader's description (the catalog) is the same in every request: it does not change.
    expect(sentTools(second.body).find((t) => t.name === "load_mcp_tools")).toEqual(loader);

    const outputs = outputsById(yielded);
    expect(outputs.get("load")!.stop_reason).toBe("completed");
    expect(outputs.get("load")!.output).toContain(
      "Loaded: mcp__big__tool_3. They are in your tool list from your next step on.",
    );
    expect(outputs.get("load")!.output).toContain("Not in the catalog: mcp__big__nope.");
    expect(outputs.get("use")).toMatchObject({ stop_reason: "completed", output: "tool_3 found: penguins" });
    expect(offeredAfter).toContain("mcp__big__tool_3");
    expect(offeredAfter).not.toContain("mcp__big__tool_4");
    // Recorded: the list after connecting, then the longer one after the load.
    const recorded = toolLists(traceRecords(session.tracePath));
    expect(recorded.at(-2)!.some((tool) => tool.name === "mcp__big__tool_3")).toBe(false);
    expect(recorded.at(-1)!.map((tool) => tool.name)).toEqual(sentNames(second.body));
  });

  it("fails a load_mcp_tools call that names no tool of the catalog, and reports tools loaded twice", async () => {
    const env = await start(
      [
        {
          tool_calls: [
            call("bad", "load_mcp_tools", { names: ["read_file", "mcp__big__tool_99"] }),
            call("empty", "load_mcp_tools", { names: [] }),
          ],
        },
        { tool_calls: [call("twice", "load_mcp_tools", { names: ["mcp__big__tool_1"] })] },
        { tool_calls: [call("again", "load_mcp_tools", { names: ["mcp__big__tool_1"] })] },
        { text: "Done." },
      ],
      [toolServer("big", 45)],
    );
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    const outputs = outputsById(await collect(session.run("Go.", { approve: allowAll })));
    await session.dispose();
    expect(outputs.get("bad")).toMatchObject({ stop_reason: "failed" });
    expect(outputs.get("bad")!.output).toContain("Not in the catalog: read_file, mcp__big__tool_99.");
    expect(outputs.get("empty")!.stop_reason).toBe("failed");
    expect(outputs.get("twice")!.stop_reason).toBe("completed");
    expect(outputs.get("again")).toMatchObject({
      stop_reason: "completed",
      output: "Already loaded: mcp__big__tool_1.",
    });
  });

  it("offers every schema at or below the threshold, and with deferLoading: never", async () => {
    for (const [count, tools] of [
      [40, {}],
      [45, { mcpToolBudget: { deferLoading: "never" } }],
    ] as const) {
      const env = await start([{ text: "Hi." }], [toolServer("mid", count)], { tools });
      const session = await env.agent.createSession({
        workspaceDir: env.workspaceDir,
        model: MODEL,
        retry: RETRY_FAST,
      });
      await collect(session.run("Hi.", { approve: allowAll }));
      await session.dispose();
      const [first] = await env.llm.waitForRequests(1);
      const names = sentNames(first.body);
      expect(names.filter((name) => name.startsWith("mcp__mid__"))).toHaveLength(count);
      expect(names).not.toContain("load_mcp_tools");
      await env.cleanup();
    }
  });

  it("defers even a small server with deferLoading: always, and keeps a first request smaller than without", async () => {
    const sizes: number[] = [];
    for (const deferLoading of ["never", "always"] as const) {
      const env = await start([{ text: "Hi." }], [toolServer("few", 3)], {
        tools: { mcpToolBudget: { deferLoading } },
      });
      const session = await env.agent.createSession({
        workspaceDir: env.workspaceDir,
        model: MODEL,
        retry: RETRY_FAST,
      });
      await collect(session.run("Hi.", { approve: allowAll }));
      await session.dispose();
      const [first] = await env.llm.waitForRequests(1);
      const names = sentNames(first.body);
      expect(names.includes("load_mcp_tools")).toBe(deferLoading === "always");
      expect(names.includes("mcp__few__tool_1")).toBe(deferLoading === "never");
      sizes.push(first.rawBody.length);
      await env.cleanup();
    }
    expect(sizes[1]).toBeLessThan(sizes[0]);
  });

  it("runs a deferred tool called before it was loaded, under its own permission", async () => {
    const env = await start(
      [{ tool_calls: [call("direct", "mcp__big__tool_2", { query: "early" })] }, { text: "Done." }],
      [toolServer("big", 50)],
    );
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    const asked: string[] = [];
    // Read-only approval allows an `r` tool without asking: the deferred tool's readOnlyHint counts.
    const approve = readOnly(async (c) => {
      asked.push(c.payload.name);
      return "deny";
    });
    const outputs = outputsById(await collect(session.run("Go.", { approve })));
    await session.dispose();
    expect(asked).toEqual([]);
    expect(outputs.get("direct")).toMatchObject({ stop_reason: "completed", output: "tool_2 found: early" });
  });

  it("offers the tools a session loaded again after a resume", async () => {
    const env = await start(
      [
        { tool_calls: [call("load", "load_mcp_tools", { names: ["mcp__big__tool_7"] })] },
        { text: "Loaded." },
        { text: "Resumed." },
      ],
      [toolServer("big", 50)],
    );
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    await collect(session.run("Load it.", { approve: allowAll }));
    await session.dispose();
    const resumed = await env.agent.resumeSession(session.id, { retry: RETRY_FAST });
    await collect(resumed.run("Again.", { approve: allowAll }));
    await resumed.dispose();
    const requests = await env.llm.waitForRequests(3);
    expect(sentNames(requests[2].body)).toEqual(sentNames(requests[1].body));
    expect(sentNames(requests[2].body)).toContain("mcp__big__tool_7");
  });
});

describe("deferred loading with allowed_tools", () => {
  it("accepts load_mcp_tools in allowed_tools, catalogs only allowed MCP tools, and defers nothing without it", async () => {
    const env = await start([{ text: "One." }, { text: "Two." }], [toolServer("big", 50)]);
    const mcpServers = [toolServer("big", 50)];
    const allowedMcp = Array.from({ length: 45 }, (_, i) => `mcp__big__tool_${i + 1}`);
    const firstRequestNames: string[][] = [];
    for (const [index, allowed] of [
      ["read_file", "load_mcp_tools", ...allowedMcp],
      ["read_file", ...allowedMcp],
    ].entries()) {
      const agent = await createAgent({
        dataRoot: env.dataRoot,
        config: { allowed_tools: allowed, tools: { mcpServers } },
        logger: { warn: () => {} },
      });
      const session = await agent.createSession({
        workspaceDir: env.workspaceDir,
        model: MODEL,
        retry: RETRY_FAST,
      });
      await collect(session.run("Hi.", { approve: allowAll }));
      await session.dispose();
      firstRequestNames.push(sentNames((await env.llm.waitForRequests(index + 1))[index].body));
    }
    const [deferred, whole] = firstRequestNames;
    expect(deferred).toEqual(["read_file", "load_mcp_tools"]);
    const loader = sentTools((await env.llm.waitForRequests(1))[0].body).find(
      (t) => t.name === "load_mcp_tools",
    )!;
    expect(loader.description.split("\n").filter((line) => line.startsWith("- mcp__"))).toHaveLength(45);
    expect(loader.description).not.toContain("mcp__big__tool_46:");
    expect(whole).toEqual(["read_file", ...allowedMcp]);
  });
});

describe("tool list warnings", () => {
  it("warns when the offered tool list is past tools.mcpToolBudget's count or size", async () => {
    const env = await start([{ text: "Hi." }], [toolServer("wide", 30)], {
      tools: { mcpToolBudget: { deferLoading: "never", warnToolCount: 20, warnToolBytes: 5_000 } },
    });
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    await collect(session.run("Hi.", { approve: allowAll }));
    await session.dispose();
    const [first] = await env.llm.waitForRequests(1);
    const count = sentNames(first.body).length;
    const warnings = env.warnings.filter((line) => line.includes("tools.mcpToolBudget"));
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain(
      `the session offers ${count} tools, more than tools.mcpToolBudget.warnToolCount (20); some providers refuse requests with more than 128 tools: set tools.mcpToolBudget.deferLoading: always`,
    );
    expect(warnings[1]).toMatch(
      /the tool list is \d+ bytes, more than tools\.mcpToolBudget\.warnToolBytes \(5000\)/,
    );
  });

  it("does not warn for a tool list within the defaults", async () => {
    const env = await start([{ text: "Hi." }], [toolServer("small", 5)]);
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    await collect(session.run("Hi.", { approve: allowAll }));
    await session.dispose();
    expect(env.warnings.filter((line) => line.includes("tools.mcpToolBudget"))).toEqual([]);
  });
});
