import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { afterEach, expect, test } from "vitest";
import { AcpChild } from "./acp-client.js";
import { fakeOpenAiPerTest, tempDir } from "./helpers.js";

// The editor's MCP servers (`mcpServers` of session/new and session/load) join the session: a
// real `penguin acp` child, a real MCP server (stdio, or streamable HTTP) and the fake model.

const API_KEY = "sk-test-penguin-acp-mcp-0123456789";
const SERVER = resolve(import.meta.dirname, "fixtures/editor-mcp-server.mjs");
/** What the editor puts in the server's env: a secret as far as Penguin knows. */
const STAMP = "stamp-secret-7c1e5a90";

const serve = fakeOpenAiPerTest(API_KEY);
let acp: AcpChild | undefined;
let remote: ChildProcess | undefined;
afterEach(async () => {
  await acp?.close();
  acp = undefined;
  remote?.kill("SIGKILL");
  remote = undefined;
});

function startAcp(env: Record<string, string>, args: string[] = []): AcpChild {
  acp = new AcpChild(["--model", "openai/fake-model", "--approve", "allow-all", ...args], {
    ...env,
    HOME: tempDir("home"),
  });
  return acp;
}

/** The text of a call's completed `tool_call_update`. */
function completedOutput(updates: SessionUpdate[]): string | undefined {
  for (const update of updates) {
    if (update.sessionUpdate !== "tool_call_update" || update.status !== "completed") continue;
    for (const item of update.content ?? []) {
      if (item.type === "content" && item.content.type === "text") return item.content.text;
    }
  }
  return undefined;
}

/** Every file under `dir`, read as text, joined. */
function allText(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(join(entry.parentPath, entry.name), "utf8"))
    .join("\n");
}

/** The fixture over a remote transport; resolves with its URL once it listens. */
async function startRemoteServer(transport: "http" | "sse"): Promise<string> {
  const child = spawn(process.execPath, [SERVER, `--${transport}`], { stdio: ["ignore", "ignore", "pipe"] });
  remote = child;
  const port = await new Promise<number>((done, fail) => {
    let seen = "";
    const timer = setTimeout(() => fail(new Error(`the MCP server did not listen: ${seen}`)), 30_000);
    child.stderr?.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /listening on port (\d+)/.exec(seen);
      if (match) {
        clearTimeout(timer);
        done(Number(match[1]));
      }
    });
  });
  return `http://127.0.0.1:${port}/${transport === "http" ? "mcp" : "sse"}`;
}

test("initialize advertises MCP over HTTP and SSE (stdio is every agent's)", async () => {
  const { env } = await serve([]);
  const init = await startAcp(env).initialize();
  expect(init.agentCapabilities?.mcpCapabilities).toEqual({ http: true, sse: true });
});

test("an editor's stdio MCP server joins the session: its tool is offered and called, and its env values stay out of the trace and the log", async () => {
  const workspace = tempDir("ws");
  const { env, llm } = await serve([
    { tool_calls: [{ name: "mcp__Editor_Tools__stamp", arguments: { text: "hello" } }] },
    { text: "Stamped." },
  ]);
  const client = startAcp(env, ["--verbose"]);
  await client.initialize();
  const { sessionId } = await client.agent.request("session/new", {
    cwd: workspace,
    mcpServers: [
      {
        name: "Editor Tools",
        command: process.execPath,
        args: [SERVER],
        env: [{ name: "STAMP", value: STAMP }],
      },
    ],
  });
  const result = await client.agent.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: "stamp hello" }],
  });
  expect(result.stopReason).toBe("end_turn");

  // The name is cleaned to Penguin's characters; the model was offered the server's tool.
  const offered = (llm.requests[0].body as { tools?: { function: { name: string } }[] }).tools ?? [];
  expect(offered.map((tool) => tool.function.name)).toContain("mcp__Editor_Tools__stamp");
  // The server got its env (the value came back), and Penguin redacted it as a secret.
  const output = completedOutput(client.updatesOf(sessionId));
  expect(output).toMatch(/^hello stamped \[redacted\]/);
  expect(JSON.stringify(llm.requests.map((r) => r.body))).toContain("hello stamped [redacted]");
  expect(JSON.stringify(llm.requests.map((r) => r.body))).not.toContain(STAMP);
  expect(allText(join(env.PENGUIN_HOME, "traces"))).not.toContain(STAMP);
  expect(allText(join(env.PENGUIN_HOME, "logs"))).not.toContain(STAMP);
  expect(client.nonProtocolLines()).toEqual([]);
});

for (const transport of ["http", "sse"] as const) {
  test(`an editor's ${transport} MCP server joins the session with the headers the editor gives`, async () => {
    const url = await startRemoteServer(transport);
    const { env } = await serve([
      { tool_calls: [{ name: "mcp__remote__stamp", arguments: { text: `over ${transport}` } }] },
      { text: "Done." },
    ]);
    const client = startAcp(env);
    await client.initialize();
    const { sessionId } = await client.agent.request("session/new", {
      cwd: tempDir("ws"),
      mcpServers: [{ type: transport, name: "remote", url, headers: [{ name: "x-stamp", value: "hdr" }] }],
    });
    await client.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "stamp it" }] });
    expect(completedOutput(client.updatesOf(sessionId))).toMatch(
      new RegExp(`^over ${transport} stamped hdr`),
    );
  });
}

test("the editor's servers join a loaded session too", async () => {
  const workspace = tempDir("ws");
  const { env } = await serve([
    { text: "Hello." },
    { tool_calls: [{ name: "mcp__later__stamp", arguments: { text: "after load" } }] },
    { text: "Done." },
  ]);
  const first = startAcp(env);
  await first.initialize();
  const { sessionId } = await first.agent.request("session/new", { cwd: workspace, mcpServers: [] });
  await first.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
  await first.close();

  const second = startAcp(env);
  await second.initialize();
  await second.agent.request("session/load", {
    sessionId,
    cwd: workspace,
    mcpServers: [{ name: "later", command: process.execPath, args: [SERVER], env: [] }],
  });
  await second.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "stamp" }] });
  expect(completedOutput(second.updatesOf(sessionId))).toMatch(/^after load stamped \(no env\)/);
});

test("a server named like one the agent configures, or with a URL that is not http(s), is refused as invalid params", async () => {
  const { env } = await serve([]);
  const agentDir = join(env.PENGUIN_HOME, "agents", "default");
  mkdirSync(agentDir, { recursive: true });
  writeFileSync(
    join(agentDir, "system_config.yaml"),
    `tools:\n  mcpServers:\n    - name: docs\n      config:\n        transport: stdio\n        command: ${JSON.stringify(process.execPath)}\n        args: [${JSON.stringify(SERVER)}]\n`,
  );
  const client = startAcp(env);
  await client.initialize();
  const clash = client.agent.request("session/new", {
    cwd: tempDir("ws"),
    mcpServers: [{ name: "docs", command: process.execPath, args: [SERVER], env: [] }],
  });
  await expect(clash).rejects.toMatchObject({
    code: -32602,
    message: expect.stringContaining(
      'session MCP server "docs" has the name of an MCP server the agent configures',
    ),
  });
  const badUrl = client.agent.request("session/new", {
    cwd: tempDir("ws"),
    mcpServers: [{ type: "sse", name: "old", url: "ftp://example.test/sse", headers: [] }],
  });
  await expect(badUrl).rejects.toMatchObject({
    code: -32602,
    message: expect.stringMatching(/session MCP server "old" is invalid: config\.url: /),
  });
  // Still serving: a session without the clashing server starts.
  const ok = await client.agent.request("session/new", { cwd: tempDir("ws"), mcpServers: [] });
  expect(ok.sessionId).toEqual(expect.any(String));
});
