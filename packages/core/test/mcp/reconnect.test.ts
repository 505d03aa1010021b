import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";
import { PROGRAMS, PROJECT_SERVER, type RunningServer, serverEntry, startRemote } from "./servers.js";
import { call, collect, MODEL, mcpSetup, outputsById, payloadOf, RETRY_FAST } from "./support.js";

// A remote server that restarted: the session connects to it again instead of failing every later
// call. A lost connection (the server's stream broke) is made again by the next call; a server
// that answers that it does not know the session (404 as the MCP specification asks, or 400 "No
// valid session ID") is initialized again once, and a read-only call is then repeated.

const start = cleanedUpAfterEach(mcpSetup);
const remotes = cleanedUpAfterEach(async (...args: Parameters<typeof startRemote>) => {
  const server: RunningServer = await startRemote(...args);
  return { server, cleanup: () => server.close() };
});

/** A session on `url`, whose model calls `calls` one task each. */
async function sessionWith(entry: Parameters<typeof serverEntry>, tasks: ReturnType<typeof call>[][]) {
  const script = tasks.flatMap((calls, index) => [
    { tool_calls: calls },
    { text: `Task ${index + 1} done.` },
  ]);
  const env = await start(script, [serverEntry(...entry)]);
  const session = await env.agent.createSession({
    workspaceDir: env.workspaceDir,
    model: MODEL,
    retry: RETRY_FAST,
  });
  return { env, session };
}

describe.each(PROGRAMS)("a remote MCP server that restarts ($label)", (program) => {
  it.each(["http", "sse"] as const)(
    "connects again to a %s server restarted between two tasks, and answers the next call",
    async (transport) => {
      const { server } = await remotes(program, transport);
      const name = `mcp__${program.name}__${program.readOnlyCall.tool}`;
      const { args, answer } = program.readOnlyCall;
      const { session } = await sessionWith(
        [program, { transport, url: server.url }],
        [[call("before", name, args)], [call("after", name, args)]],
      );
      const first = await collect(session.run("Before.", { approve: allowAll }));
      expect(outputsById(first).get("before")).toMatchObject({ stop_reason: "completed" });

      await server.restart();
      const second = await collect(session.run("After.", { approve: allowAll }));
      await session.dispose();
      const after = outputsById(second).get("after");
      expect(after?.stop_reason).toBe("completed");
      expect(after?.output).toContain(answer);
      expect(payloadOf(second.at(-1)!)).toMatchObject({ type: "task_end", status: "completed" });
    },
  );
});

describe("a streamable-HTTP server that forgets the session (the project's test server, no event stream)", () => {
  const lookup = "mcp__project__lookup";
  const writeNote = "mcp__project__write_note";

  it.each([
    ["404 Session not found", []],
    ['400 "No valid session ID"', ["--unknown-session-400"]],
  ])(
    "initializes again once when a restarted server answers %s, and repeats a read-only call",
    async (_answer, serverArgs) => {
      const { server } = await remotes(PROJECT_SERVER, "http", serverArgs);
      const { session } = await sessionWith(
        [PROJECT_SERVER, { transport: "http", url: server.url }],
        [[call("before", lookup, { key: "one" })], [call("after", lookup, { key: "two" })]],
      );
      const first = await collect(session.run("Before.", { approve: allowAll }));
      expect(outputsById(first).get("before")).toMatchObject({
        output: "value of one",
        stop_reason: "completed",
      });

      // Nothing tells the client: the server offers no event stream, and no call was under way.
      await server.restart();
      const second = await collect(session.run("After.", { approve: allowAll }));
      await session.dispose();
      expect(outputsById(second).get("after")).toMatchObject({
        output: "value of two",
        stop_reason: "completed",
      });
    },
  );

  it("initializes again but does not repeat a call that is not read-only; the next call runs", async () => {
    const { server } = await remotes(PROJECT_SERVER, "http");
    const { env, session } = await sessionWith(
      [PROJECT_SERVER, { transport: "http", url: server.url }],
      [
        [call("before", lookup, { key: "one" })],
        [call("note", writeNote, { text: "hi" })],
        [call("again", writeNote, { text: "hi" })],
      ],
    );
    await collect(session.run("Before.", { approve: allowAll }));
    await server.restart();
    const second = await collect(session.run("Write.", { approve: allowAll }));
    const note = outputsById(second).get("note");
    expect(note?.stop_reason).toBe("failed");
    expect(note?.output).toBe(
      'The MCP server "project" no longer knew this session (it restarted: HTTP 404 "Session not found"). Penguin connected to it again but did not repeat the call, because "write_note" is not read-only: call it again if it is still needed.',
    );
    // Connected again already: the model's repeated call runs.
    const third = await collect(session.run("Again.", { approve: allowAll }));
    await session.dispose();
    expect(outputsById(third).get("again")).toMatchObject({ output: "saved: hi", stop_reason: "completed" });
    expect(env.warnings).toEqual([]);
  });

  it("says the server is unreachable when it does not come back after forgetting the session", async () => {
    const { server } = await remotes(PROJECT_SERVER, "http");
    const { session } = await sessionWith(
      [PROJECT_SERVER, { transport: "http", url: server.url }],
      [[call("before", lookup, { key: "one" })], [call("after", lookup, { key: "two" })]],
    );
    await collect(session.run("Before.", { approve: allowAll }));
    await server.kill();
    const second = await collect(session.run("After.", { approve: allowAll }));
    await session.dispose();
    const after = outputsById(second).get("after");
    expect(after?.stop_reason).toBe("failed");
    expect(after?.output).toBe(
      'The MCP server "project" is unreachable: it cannot be connected to (ECONNREFUSED). The call was not made; the next call to one of its tools tries to connect again.',
    );
  });
});
