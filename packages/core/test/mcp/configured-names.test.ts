import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { closestName } from "../../src/mcp/configured-names.js";
import { createAgent } from "../../src/sdk/agent.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";
import { REFERENCE_SERVER, serverEntry } from "./servers.js";
import { collect, kind, MODEL, mcpSetup, payloadOf, RETRY_FAST, traceRecords } from "./support.js";

// Tool names of the configuration are checked when the agent loads, but a server's tools are
// known only once it connects: a misspelt `mcp__everything__ech0` in a hook's tools or in
// allowed_tools used to be accepted silently, and the hook never ran.

const start = cleanedUpAfterEach(mcpSetup);

type Result = { server: string; status: string };
const connectResults = (messages: ReturnType<typeof traceRecords>) =>
  payloadOf<{ results: Result[] }>(messages.find((m) => kind(m) === "mcp_connect_end")!).results;
/** The messages of the `warning` events from MCP, in order. */
const mcpWarnings = (messages: ReturnType<typeof traceRecords>) =>
  messages
    .filter((m) => kind(m) === "warning")
    .map((m) => payloadOf<{ source: string; message: string }>(m))
    .filter((w) => w.source === "mcp")
    .map((w) => w.message);

describe("tool names of the configuration, checked against a connected server's tools", () => {
  it("warns on stderr, in the trace and on the stream about each misspelt name with the closest tool, and loudly about a deny-hook that matches nothing", async () => {
    const env = await start([{ text: "Nothing to do." }], []);
    const warnings: string[] = [];
    const agent = await createAgent({
      dataRoot: env.dataRoot,
      config: {
        allowed_tools: ["read_file", "mcp__everything__echo", "mcp__everything__get_sum"],
        hooks: {
          before_tool: [
            { name: "guard", command: "exit 2", tools: ["mcp__everything__ech0"] },
            { name: "fine", command: "true", tools: ["mcp__everything__echo", "read_file"] },
            // A server that did not connect: its names cannot be checked, so nothing is said.
            { name: "later", command: "true", tools: ["mcp__down__anything"] },
          ],
          after_tool: [
            { name: "audit", command: "true", tools: ["mcp__everything__echo", "mcp__everything__get-summ"] },
          ],
        },
        tools: {
          mcpServers: [
            serverEntry(REFERENCE_SERVER, { transport: "stdio" }),
            { name: "down", config: { transport: "stdio", command: "penguin-no-such-mcp-server" } } as never,
          ],
        },
      },
      logger: { warn: (line) => warnings.push(line) },
    });
    const session = await agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    const yielded = await collect(session.run("Go.", { approve: allowAll }));
    await session.dispose();

    const expected = [
      'allowed_tools names "mcp__everything__get_sum", which the MCP server "everything" does not have (closest: "mcp__everything__get-sum")',
      'NO TOOL MATCHES before_tool hook "guard": it will never run, so it denies nothing. Its tools: "mcp__everything__ech0", which the MCP server "everything" does not have (closest: "mcp__everything__echo")',
      'hook "audit" lists in its tools "mcp__everything__get-summ", which the MCP server "everything" does not have (closest: "mcp__everything__get-sum")',
    ];
    // On the stream and in the trace: `warning` events after the tool list (the skipped server's
    // line first, then one for each misspelt name of the server that connected).
    const streamed = connectResults(yielded);
    expect(streamed[0]).toMatchObject({ server: "everything", status: "completed" });
    expect(streamed[1].status).toBe("failed");
    const named = expected.map((line) => `MCP server "everything": ${line}`);
    const streamedWarnings = mcpWarnings(yielded);
    expect(streamedWarnings.filter((line) => line.includes('MCP server "everything"'))).toEqual(named);
    expect(streamedWarnings.some((line) => line.startsWith('MCP server "down" skipped'))).toBe(true);
    expect(mcpWarnings(traceRecords(session.tracePath))).toEqual(streamedWarnings);
    const kinds = yielded.map(kind);
    expect(kinds.indexOf("warning")).toBeGreaterThan(kinds.indexOf("tool_list_ready"));
    // On stderr (the agent's logger): one line each, after the skipped server's line.
    expect(warnings.filter((line) => line.includes('MCP server "everything"'))).toEqual(
      expected.map((line) => `agent default: MCP server "everything": ${line}`),
    );
    expect(payloadOf(yielded.at(-1)!)).toMatchObject({ type: "task_end", status: "completed" });
  });

  it("says nothing when every configured name is a tool the server has", async () => {
    const env = await start([{ text: "Nothing to do." }], []);
    const warnings: string[] = [];
    const agent = await createAgent({
      dataRoot: env.dataRoot,
      config: {
        allowed_tools: ["mcp__everything__echo"],
        hooks: { before_tool: [{ name: "guard", command: "true", tools: ["mcp__everything__get-sum"] }] },
        tools: { mcpServers: [serverEntry(REFERENCE_SERVER, { transport: "stdio" })] },
      },
      logger: { warn: (line) => warnings.push(line) },
    });
    const session = await agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    const yielded = await collect(session.run("Go.", { approve: allowAll }));
    await session.dispose();
    expect(connectResults(yielded)[0]).toMatchObject({ status: "completed" });
    expect(mcpWarnings(yielded)).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it("names the closest tool by the fewest edits, and none when the server has no tools", () => {
    const tools = ["mcp__s__echo", "mcp__s__get-sum", "mcp__s__get-env"];
    expect(closestName("mcp__s__ech0", tools)).toBe("mcp__s__echo");
    expect(closestName("mcp__s__get_sum", tools)).toBe("mcp__s__get-sum");
    expect(closestName("mcp__s__GET-ENV", tools)).toBe("mcp__s__get-env");
    expect(closestName("mcp__s__anything", [])).toBeUndefined();
  });
});
