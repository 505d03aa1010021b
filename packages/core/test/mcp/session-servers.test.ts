import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { McpServerInput } from "@penguin/state";
import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { REDACTED_MARKER } from "../../src/environment/markers.js";
import { createAgent } from "../../src/sdk/agent.js";
import { SetupError } from "../../src/sdk/setup-error.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";
import {
  call,
  collect,
  kind,
  MODEL,
  mcpSetup,
  outputsById,
  payloadOf,
  RETRY_FAST,
  stdioServer,
  TEST_SERVER,
  traceRecords,
} from "./support.js";

// A session's own MCP servers (an editor passes its servers with each ACP session): they join the
// agent's configured ones for that session only.

const start = cleanedUpAfterEach(mcpSetup);

const TOKEN = "editor-secret-token-4f9d2c";

/** An MCP server as a caller writes it: no defaults filled in. */
function editorServer(name: string, env?: Record<string, string>): McpServerInput {
  return { name, config: { transport: "stdio", command: process.execPath, args: [TEST_SERVER], env } };
}

const traceFiles = (dataRoot: string): string[] => {
  const dir = join(dataRoot, "traces");
  try {
    return readdirSync(dir, { recursive: true }).map(String);
  } catch {
    return [];
  }
};

describe("a session's own MCP servers", () => {
  it("starts them beside the agent's servers, names their tools the same way, and keeps their env values out of outputs, requests and the trace", async () => {
    const env = await start(
      [
        {
          tool_calls: [
            call("own", "mcp__editor__lookup", { key: "alpha" }),
            call("secret", "mcp__editor__echo_secret"),
            call("configured", "mcp__docs__lookup", { key: "beta" }),
          ],
        },
        { text: "Done." },
      ],
      [stdioServer("docs")],
    );
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
      mcpServers: [editorServer("editor", { SECRET_TOKEN: TOKEN })],
    });
    const yielded = await collect(session.run("Look it up.", { approve: allowAll }));
    await session.dispose();

    const begin = yielded.find((m) => kind(m) === "mcp_connect_begin");
    expect(payloadOf(begin!)).toEqual({ type: "mcp_connect_begin", servers: ["docs", "editor"] });
    const outputs = outputsById(yielded);
    expect(outputs.get("own")).toMatchObject({ output: "value of alpha", stop_reason: "completed" });
    expect(outputs.get("configured")).toMatchObject({ output: "value of beta", stop_reason: "completed" });
    expect(outputs.get("secret")?.output).toBe(`token=${REDACTED_MARKER}`);
    expect(JSON.stringify(env.llm.requests.map((r) => r.body))).not.toContain(TOKEN);
    expect(readFileSync(session.tracePath, "utf8")).not.toContain(TOKEN);
    expect(env.warnings).toEqual([]);
  });

  it("gives a resumed session the servers passed when it is resumed", async () => {
    const env = await start(
      [
        { text: "Hello." },
        { tool_calls: [call("own", "mcp__editor__lookup", { key: "gamma" })] },
        { text: "Ok." },
      ],
      [],
    );
    const first = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    await collect(first.run("Hi.", { approve: allowAll }));
    await first.dispose();

    const resumed = await env.agent.resumeSession(first.id, {
      retry: RETRY_FAST,
      mcpServers: [editorServer("editor")],
    });
    const outputs = outputsById(await collect(resumed.run("Look it up.", { approve: allowAll })));
    await resumed.dispose();
    expect(outputs.get("own")).toMatchObject({ output: "value of gamma", stop_reason: "completed" });
  });

  it("refuses a name an agent's server has, a name given twice and an invalid definition with a SetupError, before any trace is written", async () => {
    const env = await start([{ text: "Never asked." }], [stdioServer("docs")]);
    const create = (mcpServers: McpServerInput[]) =>
      env.agent.createSession({ workspaceDir: env.workspaceDir, model: MODEL, mcpServers });

    const clash = create([editorServer("docs")]);
    await expect(clash).rejects.toBeInstanceOf(SetupError);
    await expect(clash).rejects.toThrow(
      'session MCP server "docs" has the name of an MCP server the agent configures: give it another name',
    );
    await expect(create([editorServer("twice"), editorServer("twice")])).rejects.toThrow(
      'session MCP server "twice" is given twice',
    );
    await expect(
      create([{ name: "remote", config: { transport: "http", url: "ftp://example.test/mcp" } }]),
    ).rejects.toThrow(/^session MCP server "remote" is invalid: config\.url: /);
    await expect(
      create([{ name: "bad name!", config: { transport: "stdio", command: "x" } }]),
    ).rejects.toThrow(/session MCP server "bad name!" is invalid: name: a server name is 1-64 letters/);
    expect(traceFiles(env.dataRoot)).toEqual([]);
    expect(env.llm.requests).toHaveLength(0);
  });

  it("warns when the agent's allowed_tools hides every tool of a server", async () => {
    const env = await start([{ text: "Nothing." }], []);
    const warnings: string[] = [];
    const agent = await createAgent({
      dataRoot: env.dataRoot,
      config: { allowed_tools: ["read_file"] },
      logger: { warn: (line) => warnings.push(line) },
    });
    const session = await agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
      mcpServers: [editorServer("editor")],
    });
    const yielded = await collect(session.run("Go.", { approve: allowAll }));
    await session.dispose();
    const line =
      /^MCP server "editor": the agent's allowed_tools hides all \d+ of its tools, so the model is offered none$/;
    expect(warnings).toEqual([expect.stringMatching(/^agent default: /)]);
    expect(warnings[0].replace("agent default: ", "")).toMatch(line);
    const traced = traceRecords(session.tracePath)
      .filter((m) => kind(m) === "warning")
      .map((m) => payloadOf<{ message: string }>(m).message);
    expect(traced).toEqual([expect.stringMatching(line)]);
    expect(yielded.some((m) => kind(m) === "warning")).toBe(true);
  });
});
