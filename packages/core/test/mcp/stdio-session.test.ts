import type { OmniMessage, ToolSpec } from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import { allowAll, readOnly } from "../../src/approval/policies.js";
import { REDACTED_MARKER } from "../../src/environment/markers.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";
import {
  call,
  chatMessages,
  collect,
  kind,
  MODEL,
  mcpSetup,
  outputsById,
  payloadOf,
  RETRY_FAST,
  stdioServer,
  traceRecords,
} from "./support.js";

const start = cleanedUpAfterEach(mcpSetup);

const toolLists = (messages: OmniMessage[]) =>
  messages.filter((m) => kind(m) === "tool_list_ready").map((m) => payloadOf<{ tools: ToolSpec[] }>(m).tools);

describe("MCP over stdio through an SDK session", () => {
  it("connects on the first run, offers mcp__<server>__<tool> with readOnlyHint permissions, and runs calls under read-only approval", async () => {
    const env = await start(
      [
        {
          tool_calls: [
            call("c1", "mcp__docs__lookup", { key: "alpha" }),
            call("c2", "mcp__docs__write_note", { text: "hi" }),
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
    });
    // Creating the session does not wait for MCP: the first tool list has the built-ins only.
    expect(session.tools.some((t) => t.name.startsWith("mcp__"))).toBe(false);
    expect(traceRecords(session.tracePath).map(kind)).toEqual(["session_meta", "tool_list_ready"]);

    const asked: string[] = [];
    const approve = readOnly(async (c) => {
      asked.push(c.payload.name);
      return "allow";
    });
    const yielded = await collect(session.run("Look it up and save a note.", { approve }));
    await session.dispose();

    const order = yielded.map(kind).filter((k) => !k.startsWith("partial_"));
    expect(order.slice(0, 6)).toEqual([
      "session_meta",
      "tool_list_ready",
      "mcp_connect_begin",
      "mcp_connect_end",
      "tool_list_ready",
      "text",
    ]);
    expect(payloadOf(yielded.find((m) => kind(m) === "mcp_connect_begin")!)).toEqual({
      type: "mcp_connect_begin",
      servers: ["docs"],
    });
    const end = payloadOf<{ status: string; results: Record<string, unknown>[] }>(
      yielded.find((m) => kind(m) === "mcp_connect_end")!,
    );
    expect(end.status).toBe("completed");
    expect(end.results).toHaveLength(1);
    expect(end.results[0]).toMatchObject({ server: "docs", transport: "stdio", status: "completed" });
    expect(end.results[0].duration_ms).toEqual(expect.any(Number));
    expect(end.results[0].error).toBeUndefined();

    // The full list: built-ins first, then the server's tools in its order.
    const [builtins, full] = toolLists(yielded);
    expect(full.slice(0, builtins.length)).toEqual(builtins);
    const mcpTools = full.slice(builtins.length);
    expect(end.results[0].tools).toEqual(mcpTools.map((t) => t.name));
    const permissions = Object.fromEntries(mcpTools.map((t) => [t.name, t.permission]));
    expect(permissions).toMatchObject({
      mcp__docs__lookup: "r",
      mcp__docs__write_note: "rw",
      mcp__docs__picture: "rw",
      mcp__docs__stats: "r",
      mcp__docs__crash: "rw",
    });
    for (const tool of full) expect(tool.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    // "weather.today" has a character providers refuse: sanitized, with a hash that keeps it unique.
    const weather = mcpTools.find((t) => t.name.startsWith("mcp__docs__weather_today"));
    expect(weather?.name).toMatch(/^mcp__docs__weather_today_[0-9a-f]{8}$/);
    expect(weather?.parameters).not.toHaveProperty("$schema");
    expect(mcpTools.find((t) => t.name === "mcp__docs__lookup")).toEqual({
      name: "mcp__docs__lookup",
      description: "Look a key up (read-only).",
      parameters: {
        type: "object",
        properties: { key: { type: "string" } },
        required: ["key"],
        additionalProperties: false,
      },
      permission: "r",
    });
    expect(session.tools).toEqual(full);

    // Read-only: the r tool ran without asking, the rw tool was asked about; one decision per call.
    expect(asked).toEqual(["mcp__docs__write_note"]);
    const decisions = yielded.filter((m) => kind(m) === "approval_decision").map((m) => payloadOf(m));
    expect(decisions.map((d) => d.tool_call_id)).toEqual(["c1", "c2"]);
    expect(decisions.map((d) => d.decision)).toEqual(["allow", "allow"]);
    const outputs = outputsById(yielded);
    expect(outputs.get("c1")).toMatchObject({ output: "value of alpha", stop_reason: "completed" });
    expect(outputs.get("c2")).toMatchObject({ output: "saved: hi", stop_reason: "completed" });

    // The model was offered the final list from its first request on, the same bytes each time.
    const requests = env.llm.requests.map((r) => r.body as { tools: { function: { name: string } }[] });
    expect(requests).toHaveLength(2);
    expect(requests[0].tools.map((t) => t.function.name)).toEqual(full.map((t) => t.name));
    expect(JSON.stringify(requests[1].tools)).toBe(JSON.stringify(requests[0].tools));
    expect(String(chatMessages(env.llm, 1).find((m) => m.tool_call_id === "c1")?.content)).toContain(
      "value of alpha",
    );

    // The trace holds the same records (partials aside), in the same order.
    expect(traceRecords(session.tracePath).map(kind)).toEqual(order);
  });

  it("maps image content to images, isError to failed, structured content to JSON text, and redacts the server's env values", async () => {
    const token = "tok-0123456789abcdef";
    const env = await start(
      [
        {
          tool_calls: [
            call("p", "mcp__docs__picture"),
            call("f", "mcp__docs__fail"),
            call("s", "mcp__docs__stats"),
            call("e", "mcp__docs__echo_secret"),
          ],
        },
        { text: "Seen." },
      ],
      [stdioServer("docs", { env: { SECRET_TOKEN: token } })],
      { vision: true },
    );
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    const yielded = await collect(session.run("Try them all.", { approve: allowAll }));
    await session.dispose();
    const outputs = outputsById(yielded);

    expect(outputs.get("p")?.output).toBe("a red pixel");
    expect(outputs.get("p")?.images).toEqual([expect.stringMatching(/^data:image\/png;base64,iVBORw0KGgo/)]);
    expect(outputs.get("p")?.stop_reason).toBe("completed");
    expect(outputs.get("f")).toMatchObject({ output: "no such record", stop_reason: "failed" });
    expect(JSON.parse(outputs.get("s")!.output)).toEqual({ count: 3, items: ["a", "b", "c"] });
    expect(outputs.get("e")?.output).toBe(`token=${REDACTED_MARKER}`);
    // Neither the model nor the trace ever saw the value.
    expect(JSON.stringify(env.llm.requests.map((r) => r.body))).not.toContain(token);
    expect(JSON.stringify(traceRecords(session.tracePath))).not.toContain(token);
    // The image reached the model with the tool's output.
    expect(JSON.stringify(chatMessages(env.llm, 1))).toContain("data:image/png;base64,iVBORw0KGgo");
  });

  it("starts a stdio server without Penguin's environment: only a safe list of variables and its own env", async () => {
    const env = await start(
      [{ tool_calls: [call("e", "mcp__docs__echo_secret")] }, { text: "Ok." }],
      [stdioServer("docs")],
    );
    process.env.SECRET_TOKEN = "from-penguins-own-environment";
    try {
      const session = await env.agent.createSession({
        workspaceDir: env.workspaceDir,
        model: MODEL,
        retry: RETRY_FAST,
      });
      const outputs = outputsById(await collect(session.run("Echo.", { approve: allowAll })));
      await session.dispose();
      expect(outputs.get("e")?.output).toBe("token=undefined");
    } finally {
      delete process.env.SECRET_TOKEN;
    }
  });

  it("tells a text-only model that an image was left out instead of sending it", async () => {
    const env = await start(
      [{ tool_calls: [call("p", "mcp__docs__picture")] }, { text: "Ok." }],
      [stdioServer("docs")],
      { vision: false },
    );
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    const outputs = outputsById(await collect(session.run("Picture.", { approve: allowAll })));
    await session.dispose();
    expect(outputs.get("p")?.images).toBeUndefined();
    expect(outputs.get("p")?.output).toBe(
      "a red pixel\n[image (image/png, 70 bytes) not shown: this model does not read images]",
    );
  });

  it("applies the server's permission over readOnlyHint, and connects only once per session", async () => {
    const env = await start(
      [{ tool_calls: [call("w", "mcp__ro__write_note", { text: "x" })] }, { text: "One." }, { text: "Two." }],
      [stdioServer("ro", { permission: "r" }), stdioServer("rw", { permission: "rw" })],
    );
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    const asked: string[] = [];
    const approve = readOnly(async (c) => {
      asked.push(c.payload.name);
      return "deny";
    });
    const first = await collect(session.run("First.", { approve }));
    const second = await collect(session.run("Second.", { approve }));
    await session.dispose();

    const full = toolLists(first).at(-1)!;
    const perms = (server: string) =>
      new Set(full.filter((t) => t.name.startsWith(`mcp__${server}__`)).map((t) => t.permission));
    expect(perms("ro")).toEqual(new Set(["r"]));
    expect(perms("rw")).toEqual(new Set(["rw"]));
    // permission r: auto-approved under read-only although the tool has no readOnlyHint.
    expect(asked).toEqual([]);
    expect(outputsById(first).get("w")?.output).toBe("saved: x");
    // The second task neither reconnects nor re-announces the list.
    expect(second.map(kind).filter((k) => k.startsWith("mcp_") || k === "tool_list_ready")).toEqual([]);
    const bodies = env.llm.requests.map((r) => JSON.stringify((r.body as { tools: unknown }).tools));
    expect(new Set(bodies).size).toBe(1);
  });

  it("resumes with the same tool list: no new announcement at resume, and the same bytes to the model", async () => {
    const env = await start([{ text: "First." }, { text: "After resume." }], [stdioServer("docs")]);
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    await collect(session.run("One.", { approve: allowAll }));
    await session.dispose();
    const before = traceRecords(session.tracePath).length;

    const resumed = await env.agent.resumeSession(session.id, { retry: RETRY_FAST });
    // The built-ins did not change: resuming writes nothing before the next task.
    expect(traceRecords(resumed.tracePath)).toHaveLength(before);
    const yielded = await collect(resumed.run("Two.", { approve: allowAll }));
    await resumed.dispose();
    expect(yielded.map(kind).slice(0, 3)).toEqual([
      "mcp_connect_begin",
      "mcp_connect_end",
      "tool_list_ready",
    ]);
    const [r1, r2] = env.llm.requests.map((r) => JSON.stringify((r.body as { tools: unknown }).tools));
    expect(r2).toBe(r1);
  });

  it("keeps a recorded server's tools in place after a resume where the server fails, and fails their calls at once", async () => {
    const env = await start(
      [
        { text: "First." },
        { tool_calls: [call("l", "mcp__docs__lookup", { key: "k" })] },
        { text: "Without it." },
      ],
      [stdioServer("docs")],
    );
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    await collect(session.run("One.", { approve: allowAll }));
    await session.dispose();

    // The same agent id, now with a server that cannot start under the same name.
    const { createAgent } = await import("../../src/sdk/agent.js");
    const warnings: string[] = [];
    const broken = await createAgent({
      dataRoot: env.dataRoot,
      config: { tools: { mcpServers: [stdioServer("docs", {}, ["--exit-at-start"])] } },
      logger: { warn: (line) => warnings.push(line) },
    });
    const resumed = await broken.resumeSession(session.id, { retry: RETRY_FAST });
    const yielded = await collect(resumed.run("Two.", { approve: allowAll }));
    await resumed.dispose();

    const [r1, r2] = env.llm.requests.map((r) => JSON.stringify((r.body as { tools: unknown }).tools));
    expect(r2).toBe(r1);
    const output = outputsById(yielded).get("l");
    expect(output?.stop_reason).toBe("failed");
    expect(output?.output).toMatch(/^The MCP server "docs" is unavailable: the server stopped/);
    expect(output?.output).toContain("config file missing");
    expect(warnings).toEqual([
      expect.stringMatching(/^agent default: MCP server "docs" skipped: the server stopped/),
    ]);
  });
});
