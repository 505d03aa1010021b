import { existsSync } from "node:fs";
import { join } from "node:path";
import type { OmniMessage, ToolSpec } from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { timeoutMarker } from "../../src/environment/markers.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";
import {
  alive,
  call,
  collect,
  eventually,
  kind,
  MODEL,
  mcpSetup,
  outputsById,
  payloadOf,
  RETRY_FAST,
  readPid,
  stdioServer,
  traceRecords,
} from "./support.js";

const start = cleanedUpAfterEach(mcpSetup);

const connectEnd = (messages: OmniMessage[]) =>
  payloadOf<{ status: string; results: Record<string, unknown>[] }>(
    messages.find((m) => kind(m) === "mcp_connect_end")!,
  );
const lastToolNames = (messages: OmniMessage[]) =>
  payloadOf<{ tools: ToolSpec[] }>(messages.filter((m) => kind(m) === "tool_list_ready").at(-1)!).tools.map(
    (t) => t.name,
  );

describe("MCP servers that fail", () => {
  it("skips a server that cannot start with a one-line warning, and the session works with the others", async () => {
    const env = await start(
      [{ tool_calls: [call("c1", "mcp__good__lookup", { key: "k" })] }, { text: "Fine." }],
      [
        stdioServer("exits", {}, ["--exit-at-start"]),
        { name: "missing", config: { transport: "stdio", command: "penguin-no-such-mcp-server" } } as never,
        stdioServer("good"),
      ],
    );
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    const yielded = await collect(session.run("Go.", { approve: allowAll }));
    await session.dispose();

    const end = connectEnd(yielded);
    expect(end.status).toBe("failed");
    expect(end.results.map((r) => [r.server, r.status])).toEqual([
      ["exits", "failed"],
      ["missing", "failed"],
      ["good", "completed"],
    ]);
    expect(end.results[0].error).toMatch(
      /^the server stopped \(its process exited before the MCP handshake finished\)/,
    );
    expect(end.results[0].error).toContain(
      "its stderr ends with: test-server: config file missing, giving up",
    );
    expect(end.results[1].error).toBe('cannot start "penguin-no-such-mcp-server": no such program (ENOENT)');
    expect(end.results[0].tools).toBeUndefined();

    expect(env.warnings).toHaveLength(2);
    for (const line of env.warnings) expect(line).not.toContain("\n");
    expect(env.warnings[0]).toMatch(/^agent default: MCP server "exits" skipped: the server stopped/);
    expect(env.warnings[1]).toBe(
      'agent default: MCP server "missing" skipped: cannot start "penguin-no-such-mcp-server": no such program (ENOENT)',
    );

    const names = lastToolNames(yielded);
    expect(names.some((n) => n.startsWith("mcp__exits__") || n.startsWith("mcp__missing__"))).toBe(false);
    expect(names).toContain("mcp__good__lookup");
    expect(outputsById(yielded).get("c1")).toMatchObject({ output: "value of k", stop_reason: "completed" });
    expect(payloadOf(yielded.at(-1)!)).toMatchObject({ type: "task_end", status: "completed" });
  });

  it("gives up on a server that does not answer within connectTimeoutMs, and ends its process", async () => {
    const env = await start([{ text: "Without it." }], []);
    const pidFile = join(env.scratch, "silent.pid");
    const { createAgent } = await import("../../src/sdk/agent.js");
    const warnings: string[] = [];
    const agent = await createAgent({
      dataRoot: env.dataRoot,
      config: {
        tools: {
          mcpServers: [
            stdioServer("silent", { connectTimeoutMs: 1000, env: { PID_FILE: pidFile } }, [
              "--silent-at-start",
            ]),
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
    const end = connectEnd(yielded);
    expect(end.results[0]).toMatchObject({
      server: "silent",
      status: "timeout",
      error: "no answer within 1000 ms",
    });
    expect(warnings).toEqual(['agent default: MCP server "silent" skipped: no answer within 1000 ms']);
    // The answer still came, without the server.
    expect(payloadOf(yielded.at(-1)!)).toMatchObject({ type: "task_end", status: "completed" });
    await session.dispose();
    expect(alive(readPid(pidFile))).toBe(false);
  });

  it("fails a call whose server crashes mid-call with a clear message, and later calls to its tools fail at once", async () => {
    const env = await start(
      [
        { tool_calls: [call("c1", "mcp__flaky__crash")] },
        {
          tool_calls: [
            call("c2", "mcp__flaky__lookup", { key: "k" }),
            call("c3", "mcp__steady__lookup", { key: "k" }),
          ],
        },
        { text: "Noted." },
      ],
      [stdioServer("flaky"), stdioServer("steady")],
    );
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    const yielded = await collect(session.run("Crash it.", { approve: allowAll }));
    await session.dispose();
    const outputs = outputsById(yielded);

    expect(outputs.get("c1")?.stop_reason).toBe("failed");
    expect(outputs.get("c1")?.output).toBe(
      'The MCP server "flaky" stopped during the call: the server stopped (its process exited); its stderr ends with: test-server: fatal: crashing on purpose. The call did not finish, and the server\'s tools cannot be used for the rest of this session.',
    );
    expect(outputs.get("c2")?.stop_reason).toBe("failed");
    expect(outputs.get("c2")?.output).toMatch(
      /^The MCP server "flaky" is unavailable: the server stopped \(its process exited\).*Its tools cannot be used in this session; do without them\.$/,
    );
    // The other server is not affected, and the tool list did not change.
    expect(outputs.get("c3")).toMatchObject({ output: "value of k", stop_reason: "completed" });
    const tools = env.llm.requests.map((r) => JSON.stringify((r.body as { tools: unknown }).tools));
    expect(new Set(tools).size).toBe(1);
    expect(payloadOf(yielded.at(-1)!)).toMatchObject({ type: "task_end", status: "completed" });
  });

  it("times a call out after the server's timeoutMs, and the server keeps answering", async () => {
    const env = await start(
      [
        { tool_calls: [call("h", "mcp__slow__hang")] },
        { tool_calls: [call("l", "mcp__slow__lookup", { key: "after" })] },
        { text: "Ok." },
      ],
      [stdioServer("slow", { timeoutMs: 300, maxOutputLength: 5 })],
    );
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    const yielded = await collect(session.run("Wait.", { approve: allowAll }));
    await session.dispose();
    const outputs = outputsById(yielded);
    expect(outputs.get("h")?.stop_reason).toBe("timeout");
    expect(outputs.get("h")?.output).toContain(timeoutMarker(300));
    // maxOutputLength applies to the server's tools: "value of after" is cut after 5 characters.
    expect(outputs.get("l")?.stop_reason).toBe("completed");
    expect(outputs.get("l")?.output).toMatch(/^value\n\[output truncated: exceeded 5 chars\]/);
  });

  it("undoes a connect interrupted by the user, and connects again on the next task", async () => {
    const env = await start([{ text: "Second task." }], []);
    const pidFile = join(env.scratch, "slow-start.pid");
    const { createAgent } = await import("../../src/sdk/agent.js");
    const agent = await createAgent({
      dataRoot: env.dataRoot,
      config: {
        tools: {
          mcpServers: [
            stdioServer("silent", { connectTimeoutMs: 3000, env: { PID_FILE: pidFile } }, [
              "--silent-at-start",
            ]),
          ],
        },
      },
      logger: { warn: () => {} },
    });
    const session = await agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    const controller = new AbortController();
    const first = await collect(session.run("Go.", { approve: allowAll, signal: controller.signal }), (m) => {
      // Interrupted once the server's process runs (it never answers the handshake).
      if (kind(m) === "mcp_connect_begin")
        void eventually(() => existsSync(pidFile)).then(() => controller.abort());
    });
    const end = connectEnd(first);
    expect(end.status).toBe("aborted");
    expect(end.results[0]).toMatchObject({ server: "silent", status: "aborted" });
    expect(first.filter((m) => kind(m) === "tool_list_ready")).toHaveLength(1);
    expect(payloadOf(first.at(-1)!)).toMatchObject({ type: "task_end", status: "aborted" });
    expect(alive(readPid(pidFile))).toBe(false);

    const second = await collect(session.run("Again.", { approve: allowAll }));
    await session.dispose();
    expect(second.map(kind).slice(0, 3)).toEqual(["mcp_connect_begin", "mcp_connect_end", "tool_list_ready"]);
    expect(connectEnd(second).results[0]).toMatchObject({ status: "timeout" });
    const records = traceRecords(session.tracePath).map(kind);
    expect(records.filter((k) => k === "mcp_connect_begin")).toHaveLength(2);
  });

  it("ends the stdio server's process when the session is disposed", async () => {
    const env = await start(
      [{ tool_calls: [call("c", "mcp__docs__lookup", { key: "k" })] }, { text: "Ok." }],
      [],
    );
    const pidFile = join(env.scratch, "docs.pid");
    const { createAgent } = await import("../../src/sdk/agent.js");
    const agent = await createAgent({
      dataRoot: env.dataRoot,
      config: { tools: { mcpServers: [stdioServer("docs", { env: { PID_FILE: pidFile } })] } },
      logger: { warn: () => {} },
    });
    const session = await agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    await collect(session.run("Go.", { approve: allowAll }));
    const pid = readPid(pidFile);
    expect(alive(pid)).toBe(true);
    await session.dispose();
    expect(alive(pid)).toBe(false);
  });
});
