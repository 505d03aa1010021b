import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { CHILD_MODEL, collect, exec, MODEL, RETRY_FAST, runSubagent, setup } from "../subagent/fixtures.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";
import { COMPACT_PROMPT, contentText, eventsOf } from "./support.js";

// What must survive a compaction besides the summary: the work still open. A real session with a
// real command left running and a real subagent; the summary request is an ordinary scripted turn.

const start = cleanedUpAfterEach(setup);

type ChatBody = { messages: { role: string; content?: unknown }[] };

describe("a compaction with open work", () => {
  it("names the running command and the idle subagent after the summary, not the command that ended", {
    timeout: 30_000,
  }, async () => {
    const env = await start(
      [
        {
          tool_calls: [
            {
              ...exec("call_serve", "sleep 30 # the dev server"),
              arguments: { description: "serve", cmd: "sleep 30 # the dev server", yield_time_ms: 100 },
            },
          ],
        },
        { tool_calls: [exec("call_done", "echo built")] },
        { tool_calls: [runSubagent("call_child", { prompt: "Check the tests.", ...CHILD_MODEL })] },
        { text: "Server up, build done, a subagent checked the tests." },
        { text: "[summary]A dev server runs; the build passed; a subagent checked the tests.[/summary]" },
        { text: "Still on it." },
      ],
      {
        childScript: [{ text: "The tests pass." }],
        config: { compaction: { prompt: COMPACT_PROMPT } },
      },
    );
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    await collect(session.run("Serve, build and check.", { approve: allowAll }));
    const serving = session.processes.list().find((info) => info.status === "running");
    expect(serving?.cmd).toBe("sleep 30 # the dev server");
    const [child] = session.subagents;
    expect(child?.status).toBe("idle");

    const compacted = await collect(session.compact());
    expect(eventsOf(compacted, "compaction_end")[0]).toMatchObject({ status: "completed" });
    await collect(session.run("Go on.", { approve: allowAll }));
    await session.dispose();

    const requests = env.llm.requests.filter((r) => r.protocol === "openai-chat");
    const next = (requests[requests.length - 1]!.body as ChatBody).messages;
    const summary = contentText(next[1]);
    expect(summary).toMatch(/^\[context_summary\]/);
    expect(summary).toContain("A dev server runs; the build passed");
    expect(summary).toContain("Still open when the context was compacted:");
    expect(summary).toContain(`- command ${serving?.id} (exec_command), running: sleep 30 # the dev server`);
    expect(summary).toContain(`- subagent ${child?.subagentId}, idle; last task completed`);
    // The command that had ended is no open work.
    expect(summary).not.toContain("echo built");
    // The summary block closes after the list: the list is part of the compacted context.
    expect(summary).toMatch(/subagent[^\n]*\n\[\/context_summary\]/);
  });
});
