import { performance } from "node:perf_hooks";
import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";
import { PROGRAMS, type RunningServer, serverEntry, startRemote } from "./servers.js";
import { collect, kind, MODEL, mcpSetup, outputsById, payloadOf, RETRY_FAST } from "./support.js";

// A remote server that dies mid-call: the lost connection fails the call at once (not at the
// call's timeout), with the same clear message as a stdio server that exits, and the calls after
// it say the server is unreachable.

const start = cleanedUpAfterEach(mcpSetup);
const remotes = cleanedUpAfterEach(async (...args: Parameters<typeof startRemote>) => {
  const server: RunningServer = await startRemote(...args);
  return { server, cleanup: () => server.close() };
});

/** Far beyond what the test waits: only a detected loss can end the call in time. */
const CALL_TIMEOUT_MS = 90_000;
/** "Within a second" on a quiet machine; generous here, the machine is shared. */
const DETECTED_WITHIN_MS = 10_000;
/** Lets the call reach the server before it is killed. */
const KILL_AFTER_MS = 500;

describe.each(PROGRAMS)("a remote MCP server that dies mid-call ($label)", (program) => {
  it.each(["http", "sse"] as const)(
    "fails a call within a second when the %s server dies mid-call, and later calls say it is unreachable",
    async (transport) => {
      const { server } = await remotes(program, transport);
      const slow = `mcp__${program.name}__${program.slowCall.tool}`;
      const quick = `mcp__${program.name}__${program.readOnlyCall.tool}`;
      const env = await start(
        [
          { tool_calls: [{ id: "slow", name: slow, arguments: program.slowCall.args }] },
          { tool_calls: [{ id: "after", name: quick, arguments: program.readOnlyCall.args }] },
          { text: "Noted." },
        ],
        [serverEntry(program, { transport, url: server.url }, { timeoutMs: CALL_TIMEOUT_MS })],
      );
      const session = await env.agent.createSession({
        workspaceDir: env.workspaceDir,
        model: MODEL,
        retry: RETRY_FAST,
      });
      let killedAt: number | undefined;
      let failedAt: number | undefined;
      const yielded = await collect(session.run("Run the slow one.", { approve: allowAll }), (m) => {
        const payload = m.payload as { type: string; tool_call_id?: string };
        if (kind(m) === "approval_decision" && payload.tool_call_id === "slow") {
          setTimeout(() => {
            void server.kill().then(() => {
              killedAt = performance.now();
            });
          }, KILL_AFTER_MS);
        }
        if (kind(m) === "tool_call_output" && payload.tool_call_id === "slow") failedAt = performance.now();
      });
      await session.dispose();

      const outputs = outputsById(yielded);
      expect(outputs.get("slow")?.stop_reason).toBe("failed");
      expect(outputs.get("slow")?.output).toMatch(
        new RegExp(
          `^The MCP server "${program.name}" stopped during the call: the server stopped \\(its connection was lost: .+\\)\\. The call did not finish; the next call to one of its tools connects to the server again\\.$`,
        ),
      );
      expect(killedAt).toBeDefined();
      expect(failedAt).toBeDefined();
      expect((failedAt ?? 0) - (killedAt ?? 0)).toBeLessThan(DETECTED_WITHIN_MS);

      // The next call tries to connect again and says why it cannot: unreachable, not an answer.
      const after = outputs.get("after");
      expect(after?.stop_reason).toBe("failed");
      expect(after?.output).toMatch(
        new RegExp(`^The MCP server "${program.name}" is unreachable: .*ECONNREFUSED`),
      );
      expect(after?.output).not.toContain("answered the call with an error");
      expect(payloadOf(yielded.at(-1)!)).toMatchObject({ type: "task_end", status: "completed" });
    },
  );
});
