import { existsSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { OmniMessage } from "@penguin/protocol";
import type { McpServer } from "@penguin/state";
import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { MCP_PROGRESS_MAX_LINES } from "../../src/mcp/limits.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";
import {
  call,
  chatMessages,
  collect,
  eventually,
  kind,
  MODEL,
  mcpSetup,
  outputsById,
  payloadOf,
  RETRY_FAST,
  traceRecords,
} from "./support.js";

// What an MCP tool's result carries on its way to the model, the trace and the screen, against a
// real stdio server (fixtures/content-server.mjs on the official SDK): control characters, images
// repeated as structured content, tools that run only as tasks, progress notifications.

const CONTENT_SERVER = resolve(import.meta.dirname, "fixtures/content-server.mjs");
const RED_PIXEL =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

const start = cleanedUpAfterEach(mcpSetup);

function contentServer(options: { args?: string[]; timeoutMs?: number } = {}): McpServer {
  return {
    name: "content",
    config: {
      transport: "stdio",
      command: process.execPath,
      args: [CONTENT_SERVER, ...(options.args ?? [])],
      connectTimeoutMs: 10_000,
      permission: "auto",
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    },
  } as McpServer;
}

/** One session run of `calls` (then a closing text), on the content server. */
async function runCalls(
  calls: ReturnType<typeof call>[],
  options: { server?: McpServer; vision?: boolean; onMessage?: (m: OmniMessage) => void } = {},
) {
  const env = await start([{ tool_calls: calls }, { text: "Done." }], [options.server ?? contentServer()], {
    vision: options.vision ?? false,
  });
  const session = await env.agent.createSession({
    workspaceDir: env.workspaceDir,
    model: MODEL,
    retry: RETRY_FAST,
  });
  const messages = await collect(session.run("Go.", { approve: allowAll }), options.onMessage);
  await session.dispose();
  return { env, session, messages, outputs: outputsById(messages) };
}

/** The concatenated `partial_tool_call_output` deltas of one call. */
function streamedOutput(messages: readonly OmniMessage[], id: string): string {
  return messages
    .filter((m) => kind(m) === "partial_tool_call_output")
    .map((m) => payloadOf<{ event_type: string; tool_call_id: string; output: string }>(m))
    .filter((p) => p.tool_call_id === id && p.event_type === "delta")
    .map((p) => p.output)
    .join("");
}

const toolText = (env: Awaited<ReturnType<typeof mcpSetup>>, id: string) =>
  String(chatMessages(env.llm, 1).find((m) => m.role === "tool" && m.tool_call_id === id)?.content ?? "");

describe("control characters in MCP output", () => {
  it("replaces NUL and the other control characters of a result as in command output, keeping ESC", async () => {
    const { env, session, messages, outputs } = await runCalls([call("c1", "mcp__content__colored")]);
    const expected = "\u001b[31mred\u001b[0m nul:\uFFFD bell:\uFFFD back:\uFFFD end";
    expect(outputs.get("c1")?.output).toBe(expected);
    expect(streamedOutput(messages, "c1")).toBe(expected);
    expect(toolText(env, "c1")).toBe(expected);
    const traced = traceRecords(session.tracePath).find(
      (m) => kind(m) === "tool_call_output" && payloadOf<{ tool_call_id: string }>(m).tool_call_id === "c1",
    );
    expect(payloadOf<{ output: string }>(traced!).output).toBe(expected);
  });

  it("replaces control characters in the error message a server answers a call with", async () => {
    const { env, outputs } = await runCalls([call("c1", "mcp__content__colored_error")]);
    const output = outputs.get("c1")?.output ?? "";
    expect(outputs.get("c1")?.stop_reason).toBe("failed");
    expect(output).toContain("broken\uFFFD \u001b[2Jscreen cleared\uFFFD");
    expect(output).not.toMatch(/[\u0000\u0007]/);
    expect(toolText(env, "c1")).not.toMatch(/[\u0000\u0007]/);
  });
});

describe("an image that structured content repeats", () => {
  it("is sent once, as an image, with no base64 in the text (server-filesystem's read_media_file)", async () => {
    const { env, outputs } = await runCalls([call("c1", "mcp__content__read_media_file")], { vision: true });
    expect(outputs.get("c1")?.images).toEqual([`data:image/png;base64,${RED_PIXEL}`]);
    expect(outputs.get("c1")?.output).not.toContain(RED_PIXEL.slice(0, 24));
    // The request after the call carries the pixel exactly once (the image part), not as text.
    const body = JSON.stringify(env.llm.requests[1].body);
    expect(body.split(RED_PIXEL.slice(0, 24)).length - 1).toBe(1);
  });

  it("keeps the structured metadata but never its base64, also for a model without vision", async () => {
    const { env, outputs } = await runCalls([call("c1", "mcp__content__media_with_metadata")]);
    const output = outputs.get("c1")?.output ?? "";
    expect(output).toContain('"width": 1');
    expect(output).toContain('"preview": "[base64 data (70 bytes) left out]"');
    expect(output).toContain('"raw": "[base64 data (70 bytes) left out]"');
    expect(JSON.stringify(env.llm.requests[1].body)).not.toContain(RED_PIXEL.slice(0, 24));
  });
});

describe("MCP tools that require task-based execution", () => {
  it("runs a task-required tool through MCP tasks and gives its result", async () => {
    const { messages, outputs } = await runCalls([
      call("c1", "mcp__content__slow_report", { topic: "sales" }),
    ]);
    expect(outputs.get("c1")).toMatchObject({ output: "report on sales: 42", stop_reason: "completed" });
    const end = payloadOf<{ results: { tools?: string[] }[] }>(
      messages.find((m) => kind(m) === "mcp_connect_end")!,
    );
    expect(end.results[0].tools).toContain("mcp__content__slow_report");
  });

  it("fails a task that fails with the server's status message, not SDK advice", async () => {
    const { outputs } = await runCalls([call("c1", "mcp__content__failing_report")]);
    const output = outputs.get("c1")?.output ?? "";
    expect(outputs.get("c1")?.stop_reason).toBe("failed");
    expect(output).toContain("the data source is offline");
    expect(output).not.toContain("callToolStream");
  });

  it("cancels the task on the server when the call times out", async () => {
    const marker = join(tmpdir(), `penguin-cancelled-${process.pid}-${Date.now()}`);
    const { outputs } = await runCalls([call("c1", "mcp__content__endless_report")], {
      server: contentServer({ args: ["--cancelled-marker", marker], timeoutMs: 1_500 }),
    });
    expect(outputs.get("c1")?.stop_reason).toBe("timeout");
    // The server hears of it: it marks the task cancelled (the session closed it right after).
    const cancelled = await eventually(() => existsSync(marker), 15_000);
    rmSync(marker, { force: true });
    expect(cancelled).toBe(true);
  });

  it("leaves a task-required tool out, with a warning and a note in mcp_connect_end, when the server lacks the tasks capability", async () => {
    const env = await start([{ text: "Done." }], [contentServer({ args: ["--no-tasks"] })]);
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    const messages = await collect(session.run("Go.", { approve: allowAll }));
    await session.dispose();
    expect(session.tools.map((t) => t.name)).not.toContain("mcp__content__slow_report");
    expect(session.tools.map((t) => t.name)).toContain("mcp__content__colored");
    const end = traceRecords(session.tracePath).find((m) => kind(m) === "mcp_connect_end")!;
    const result = payloadOf<{ status: string; results: { status: string; left_out?: unknown[] }[] }>(end)
      .results[0];
    expect(result.status).toBe("completed");
    expect(result.left_out).toEqual([
      { tool: "slow_report", reason: expect.stringContaining('execution.taskSupport: "required"') },
      { tool: "failing_report", reason: expect.stringContaining("tasks capability") },
      { tool: "endless_report", reason: expect.stringContaining("tasks capability") },
    ]);
    expect(messages.some((m) => kind(m) === "mcp_connect_end")).toBe(true);
    expect(env.warnings).toContainEqual(
      expect.stringMatching(
        /MCP server "content": tool "slow_report" left out: it requires task-based execution/,
      ),
    );
  });
});

describe("progress of long-running MCP tools", () => {
  it("streams progress notifications as partial output while the tool runs", async () => {
    // The server's last step waits for a file that the test writes only once the first progress
    // line has streamed: the call can only finish if progress is shown while it runs.
    const gate = join(tmpdir(), `penguin-gate-${process.pid}-${Date.now()}`);
    let streamed = "";
    let sawProgressLive = false;
    const { messages, outputs } = await runCalls([call("c1", "mcp__content__progress_steps", { steps: 3 })], {
      server: contentServer({ args: ["--gate", gate], timeoutMs: 20_000 }),
      onMessage: (m) => {
        if (kind(m) !== "partial_tool_call_output") return;
        // Deltas, not lines: the text is streamed in pieces of any size.
        streamed += payloadOf<{ output: string }>(m).output;
        if (streamed.includes("[progress 1/3] step 1 of 3") && !existsSync(gate)) {
          sawProgressLive = true;
          writeFileSync(gate, "go");
        }
      },
    });
    rmSync(gate, { force: true });
    expect(sawProgressLive).toBe(true);
    const output = outputs.get("c1")?.output;
    expect(output).toBe(
      [
        "[progress 1/3] step 1 of 3",
        "[progress 2/3] step 2 of 3",
        "[progress 3/3] step 3 of 3",
        "all 3 steps done (progress token present)",
      ].join("\n"),
    );
    expect(outputs.get("c1")?.stop_reason).toBe("completed");
    // The protocol's rule: the deltas concatenate to exactly the complete output.
    expect(streamedOutput(messages, "c1")).toBe(output);
  });

  it(`keeps at most ${MCP_PROGRESS_MAX_LINES} progress lines and counts the rest`, async () => {
    const { messages, outputs } = await runCalls([call("c1", "mcp__content__progress_steps", { steps: 30 })]);
    const output = outputs.get("c1")?.output ?? "";
    const lines = output.split("\n");
    expect(lines.filter((line) => line.startsWith("[progress "))).toHaveLength(MCP_PROGRESS_MAX_LINES);
    expect(lines.at(-2)).toBe(`[${30 - MCP_PROGRESS_MAX_LINES} more progress notifications left out]`);
    expect(lines.at(-1)).toBe("all 30 steps done (progress token present)");
    expect(streamedOutput(messages, "c1")).toBe(output);
  });
});
