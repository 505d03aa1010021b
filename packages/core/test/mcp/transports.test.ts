import type { OmniMessage, ToolSpec } from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import { readOnly } from "../../src/approval/policies.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";
import { PROGRAMS, type RunningServer, serverEntry, startRemote, TRANSPORTS } from "./servers.js";
import { collect, kind, MODEL, mcpSetup, outputsById, payloadOf, RETRY_FAST } from "./support.js";

// The MCP suite's common ground, against the project's own test server and the official reference
// server, over each transport: connect, list the tools, run a read-only call under read-only
// approval.

const start = cleanedUpAfterEach(mcpSetup);
const remotes = cleanedUpAfterEach(async (...args: Parameters<typeof startRemote>) => {
  const server: RunningServer = await startRemote(...args);
  return { server, cleanup: () => server.close() };
});

const lastTools = (messages: OmniMessage[]) =>
  payloadOf<{ tools: ToolSpec[] }>(messages.filter((m) => kind(m) === "tool_list_ready").at(-1)!).tools;

describe.each(PROGRAMS)("MCP suite against $label", (program) => {
  it.each(TRANSPORTS)(
    "connects over %s, offers its tools as mcp__<server>__<tool> and answers a read-only call without asking",
    async (transport) => {
      const target =
        transport === "stdio"
          ? ({ transport } as const)
          : { transport, url: (await remotes(program, transport)).server.url };
      const { tool, args, answer } = program.readOnlyCall;
      const name = `mcp__${program.name}__${tool}`;
      const env = await start(
        [{ tool_calls: [{ id: "r", name, arguments: args }] }, { text: "Done." }],
        [serverEntry(program, target)],
      );
      const session = await env.agent.createSession({
        workspaceDir: env.workspaceDir,
        model: MODEL,
        retry: RETRY_FAST,
      });
      const asked: string[] = [];
      const yielded = await collect(
        session.run("Call it.", {
          approve: readOnly(async (call) => {
            asked.push(call.payload.name);
            return "deny";
          }),
        }),
      );
      await session.dispose();

      const end = payloadOf<{ status: string; results: Record<string, unknown>[] }>(
        yielded.find((m) => kind(m) === "mcp_connect_end")!,
      );
      expect(end.status).toBe("completed");
      expect(end.results[0]).toMatchObject({ server: program.name, transport, status: "completed" });
      const offered = lastTools(yielded).filter((t) => t.name.startsWith(`mcp__${program.name}__`));
      expect(offered.map((t) => t.name)).toEqual(end.results[0].tools);
      expect(offered.find((t) => t.name === name)?.permission).toBe("r");
      expect(asked).toEqual([]);
      const output = outputsById(yielded).get("r");
      expect(output?.stop_reason).toBe("completed");
      expect(output?.output).toContain(answer);
      expect(payloadOf(yielded.at(-1)!)).toMatchObject({ type: "task_end", status: "completed" });
    },
  );
});
