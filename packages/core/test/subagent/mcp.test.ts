import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { stdioServer } from "../mcp/support.js";
import {
  CHILD_MODEL,
  collect,
  kind,
  outputOf,
  RETRY_FAST,
  runSubagent,
  sessionRecords,
  setup,
} from "./fixtures.js";

// Subagents get the MCP tools of their agent's servers. A child session connects its own copy of
// each server (its own stdio process) when its first task starts; disposing the parent disposes
// every child, and with it every connection and process the child opened.

type Env = Awaited<ReturnType<typeof setup>>;
const envs: Env[] = [];
afterEach(async () => {
  await Promise.all(envs.splice(0).map((env) => env.cleanup()));
});

/**
 * The live processes whose command line carries `marker` (a running stdio server of this test;
 * a zombie has ended). Linux: read from /proc.
 */
function serverPids(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      if (!cmdline.split("\0").includes(marker)) continue;
      const state = readFileSync(`/proc/${entry}/stat`, "utf8").replace(/^.*\) /, "")[0];
      if (state !== "Z" && state !== "X") pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids.sort((a, b) => a - b);
}

async function mcpSubagentSetup(
  script: Parameters<typeof setup>[0],
  childScript: Parameters<typeof setup>[0],
) {
  const marker = `--penguin-test-${randomUUID()}`;
  const env = await setup(script, {
    childScript,
    config: { tools: { mcpServers: [stdioServer("notes", {}, [marker])] } },
  });
  envs.push(env);
  return { env, marker };
}

/** Waits for a state the test cannot be told about (a background child's progress). */
async function until(done: () => boolean, what = "the expected state") {
  const deadline = Date.now() + 20_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Whether the (only) child of `parentId` has traced a record of this kind. */
function childTraceHas(env: Env, parentId: string, type: string): boolean {
  const pointer = sessionRecords(env.location, parentId).find((m) => kind(m) === "subagent");
  if (!pointer) return false;
  const childId = (pointer.payload as { session_id: string }).session_id;
  return sessionRecords(env.location, childId).some((m) => kind(m) === type);
}

/** The tool names a model request offered. */
const offeredTools = (body: unknown): string[] =>
  ((body as { tools?: { function: { name: string } }[] } | undefined)?.tools ?? []).map(
    (tool) => tool.function.name,
  );

const lookup = (id: string, key: string) => ({ id, name: "mcp__notes__lookup", arguments: { key } });

describe.runIf(process.platform === "linux")("a subagent's MCP tools", () => {
  it("are the parent's configured servers: the child calls one, traced under the child, and the parent's dispose ends its server copy", async () => {
    const { env, marker } = await mcpSubagentSetup(
      [{ tool_calls: [runSubagent("sub1", { prompt: "Look up k1.", ...CHILD_MODEL })] }, { text: "done" }],
      [{ tool_calls: [lookup("m1", "k1")] }, { text: "k1 is value of k1" }],
    );
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: "fake/fake-model",
      retry: RETRY_FAST,
    });
    const messages = await collect(session.run("Delegate the lookup.", { approve: allowAll }));

    // The child was offered the server's tools and its call ran against the server.
    const childBody = env.llm2.requests[0]?.body as { tools?: { function: { name: string } }[] } | undefined;
    const childTools = (childBody?.tools ?? []).map((tool) => tool.function.name);
    expect(childTools).toContain("mcp__notes__lookup");
    expect(outputOf(messages, "sub1").output).toContain("k1 is value of k1");

    // Traced under the child: its own trace holds the call and its output, and the parent's
    // stream carries them with the child's id as origin.
    const pointer = messages.find((m) => kind(m) === "subagent");
    const childId = (pointer?.payload as { session_id?: string } | undefined)?.session_id ?? "";
    const childRecords = sessionRecords(env.location, childId);
    const [meta] = childRecords;
    expect(meta.type === "session_meta" && meta.payload.parent_session_id).toBe(session.id);
    const childCall = childRecords.find((m) => kind(m) === "tool_call");
    expect(childCall?.payload).toMatchObject({ name: "mcp__notes__lookup", tool_call_id: "m1" });
    const childOutput = childRecords.find((m) => kind(m) === "tool_call_output");
    expect(childOutput?.payload).toMatchObject({
      tool_call_id: "m1",
      output: "value of k1",
      stop_reason: "completed",
    });
    expect(childRecords.some((m) => kind(m) === "mcp_connect_end")).toBe(true);
    const relayed = messages.find(
      (m) => kind(m) === "tool_call_output" && (m.payload as { tool_call_id: string }).tool_call_id === "m1",
    );
    expect(relayed?.origin).toEqual([childId]);
    const parentOwn = sessionRecords(env.location, session.id).filter((m) => m.origin === undefined);
    expect(
      parentOwn.some(
        (m) => kind(m) === "tool_call" && (m.payload as { name: string }).name === "mcp__notes__lookup",
      ),
    ).toBe(false);

    // Two copies of the server run: the parent's and the child's (the child stays for follow-ups).
    expect(serverPids(marker)).toHaveLength(2);
    await session.dispose();
    expect(serverPids(marker)).toEqual([]);
  });

  it("of a child still in a call when the parent is disposed: every server process ends", async () => {
    const { env, marker } = await mcpSubagentSetup(
      [
        {
          tool_calls: [runSubagent("sub1", { prompt: "Call hang.", yield_time_ms: 100, ...CHILD_MODEL })],
        },
        { text: "left it running" },
      ],
      [{ tool_calls: [{ id: "h1", name: "mcp__notes__hang", arguments: {} }] }, { text: "never" }],
    );
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: "fake/fake-model",
      retry: RETRY_FAST,
    });
    const messages = await collect(session.run("Start it.", { approve: allowAll }));
    expect(outputOf(messages, "sub1").output).toMatch(/subagent_id/);
    // The child goes on in the background: it connects its copy, asks its model, calls hang.
    await until(() => env.llm2.requests.length === 1 && serverPids(marker).length === 2);
    await until(() => childTraceHas(env, session.id, "approval_decision"));
    await session.dispose();
    expect(serverPids(marker)).toEqual([]);
  });

  it("of a child still connecting when the parent is disposed: the half-started server ends too", async () => {
    const { env, marker } = await mcpSubagentSetup(
      [
        { tool_calls: [runSubagent("sub1", { prompt: "Look up k1.", yield_time_ms: 50, ...CHILD_MODEL })] },
        { text: "left it running" },
      ],
      [{ tool_calls: [lookup("m1", "k1")] }, { text: "never read" }],
    );
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: "fake/fake-model",
      retry: RETRY_FAST,
    });
    await collect(session.run("Start it.", { approve: allowAll }));
    // The child's copy has been spawned; its handshake is (very likely) not done yet.
    await until(() => serverPids(marker).length === 2);
    await session.dispose();
    expect(serverPids(marker)).toEqual([]);
    expect(env.llm2.requests.length).toBeLessThanOrEqual(1);
  });

  it("are only their agent's configured servers: a server the parent session brought is not handed down", async () => {
    const { env, marker } = await mcpSubagentSetup(
      [{ tool_calls: [runSubagent("sub1", { prompt: "Look up k1.", ...CHILD_MODEL })] }, { text: "done" }],
      [{ text: "nothing to do" }],
    );
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: "fake/fake-model",
      retry: RETRY_FAST,
      mcpServers: [stdioServer("editor", {}, [marker])],
    });
    await collect(session.run("Delegate the lookup.", { approve: allowAll }));
    expect(offeredTools(env.llm.requests[0]?.body)).toContain("mcp__editor__lookup");
    const childTools = offeredTools(env.llm2.requests[0]?.body);
    expect(childTools).toContain("mcp__notes__lookup");
    expect(childTools.some((name) => name.startsWith("mcp__editor__"))).toBe(false);
    await session.dispose();
  });
});
