import { scratchpadRoot, tracesDir } from "@penguin/state";
import { readSession, rebuildContext } from "@penguin/trace";
import { afterEach, describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { chatMessages, collect, MODEL, setup } from "../sdk/fixtures.js";
import { contentText, eventsOf, printTurn, summaryReplies } from "./support.js";

type Env = Awaited<ReturnType<typeof setup>>;
const envs: Env[] = [];
afterEach(async () => {
  await Promise.all(envs.splice(0).map((env) => env.cleanup()));
});

/** A usage over max_context_length (4000) once the context holds several turns. */
const usage = (input: number) => ({
  input_tokens: input,
  output_tokens: 10,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
});

describe("discard mode", () => {
  it("drops the oldest whole turns, keeps the task's message and the newest turns, and asks the model nothing", async () => {
    const summaries = summaryReplies([]);
    const env = await setup(
      [
        { ...printTurn("call_1", 4_000), usage: usage(100) },
        { ...printTurn("call_2", 4_000), usage: usage(100) },
        { ...printTurn("call_3", 4_000), usage: usage(100) },
        { ...printTurn("call_4", 100), usage: usage(9_000) },
        { text: "All printed." },
      ],
      { pick: summaries.pick, config: { compaction: { max_context_length: 4_000, mode: "discard" } } },
    );
    envs.push(env);
    const session = await env.agent.createSession({ workspaceDir: env.workspaceDir, model: MODEL });
    const messages = await collect(session.run("Print in four steps.", { approve: allowAll }));
    await session.dispose();

    expect(messages.at(-1)?.payload).toMatchObject({ type: "task_end", status: "completed" });
    expect(summaries.asked).toBe(0);
    expect(env.llm.requests).toHaveLength(5);
    const [end] = eventsOf(messages, "compaction_end");
    expect(end).toMatchObject({ status: "completed", reason: "context", mode: "discard" });
    expect(end!.dropped_turns).toBeGreaterThanOrEqual(1);

    const last = chatMessages(env.llm, 4);
    expect(last[0]!.role).toBe("system");
    expect(contentText(last[1])).toMatch(/^\[context_summary\]\n\d+ earlier turns? (was|were) dropped/);
    expect(contentText(last[1])).toMatch(/Print in four steps\.$/);
    // Whole turns only: every tool call still has its output, right after it.
    const calls = last.flatMap((m) => (m.tool_calls ?? []).map((call) => call.id));
    const outputs = last.filter((m) => m.role === "tool").map((m) => m.tool_call_id);
    expect(outputs).toEqual(calls);
    expect(calls).toContain("call_4");
    expect(calls).not.toContain("call_1");

    // A resume has the same context: the new file holds it.
    const location = { tracesDir: tracesDir(env.dataRoot), scratchpadRoot: scratchpadRoot(env.dataRoot) };
    const resumed = rebuildContext(readSession(location, session.id).records);
    const ids = resumed.messages.flatMap((m) =>
      m.payload.type === "tool_call" ? [(m.payload as { tool_call_id: string }).tool_call_id] : [],
    );
    expect(ids).toEqual(calls);
  });
});
