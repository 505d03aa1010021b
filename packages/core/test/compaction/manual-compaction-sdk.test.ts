import type { ScriptTurnInput } from "@penguin/fake-llm";
import { scratchpadRoot, tracesDir } from "@penguin/state";
import { readSession, rebuildContext } from "@penguin/trace";
import { afterEach, describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { chatMessages, collect, MODEL, setup } from "../sdk/fixtures.js";
import { COMPACT_PROMPT, contentText, eventsOf, payloadType, printTurn, summaryReplies } from "./support.js";

type Env = Awaited<ReturnType<typeof setup>>;
const envs: Env[] = [];
afterEach(async () => {
  await Promise.all(envs.splice(0).map((env) => env.cleanup()));
});

async function start(script: ScriptTurnInput[], pick = summaryReplies([]).pick) {
  const env = await setup(script, { pick, config: { compaction: { prompt: COMPACT_PROMPT } } });
  envs.push(env);
  const session = await env.agent.createSession({ workspaceDir: env.workspaceDir, model: MODEL });
  return { env, session };
}

describe("session.compact()", () => {
  it("summarizes the context on demand; the next task starts from the summary, and a resume does too", async () => {
    const summaries = summaryReplies([{ text: "[summary]They asked for 50 x; done.[/summary]" }]);
    const { env, session } = await start(
      [printTurn("call_a", 50), { text: "Printed." }, { text: "Next done." }],
      summaries.pick,
    );
    await collect(session.run("Print 50 x.", { approve: allowAll }));
    const compacted = await collect(session.compact());
    const types = compacted.map(payloadType);
    // The summary streams between begin and end; the new context's header and summary come last.
    expect(types[0]).toBe("compaction_begin");
    expect(types.slice(1, types.indexOf("session_meta"))).toContain("partial_text");
    expect(types.slice(types.indexOf("session_meta"))).toEqual([
      "session_meta",
      "tool_list_ready",
      "text",
      "text",
      "compaction_end",
    ]);
    expect(eventsOf(compacted, "compaction_begin")).toEqual([
      { type: "compaction_begin", reason: "manual", mode: "summarize" },
    ]);
    expect(eventsOf(compacted, "compaction_end")[0]).toMatchObject({ status: "completed", reason: "manual" });
    expect(session.tracePath).toMatch(/_002\.jsonl$/);

    await collect(session.run("And now?", { approve: allowAll }));
    const next = chatMessages(env.llm, 3);
    expect(next.map((m) => m.role)).toEqual(["system", "user"]);
    // The last task's own message survives, after the summary.
    expect(contentText(next[1])).toMatch(/They asked for 50 x; done\.[\s\S]*Print 50 x\.\n\nAnd now\?$/);
    await session.dispose();

    const location = { tracesDir: tracesDir(env.dataRoot), scratchpadRoot: scratchpadRoot(env.dataRoot) };
    const resumed = rebuildContext(readSession(location, session.id).records);
    expect(contentText({ content: (resumed.messages[0]!.payload as { text: string }).text })).toMatch(
      /^\[context_summary\]/,
    );
    expect(resumed.messages).toHaveLength(4);
    expect(resumed.contextTurns).toBe(1);
  });

  it("is refused while a task runs, and a task is refused while a compaction runs", async () => {
    const { session } = await start([
      { text: "Slow answer that streams.", chunk_size: 2, chunk_delay_ms: 20 },
      { text: "[summary]s[/summary]" },
    ]);
    const run = session.run("Hello.", { approve: allowAll })[Symbol.asyncIterator]();
    await run.next();
    expect(() => session.compact()).toThrow(/already running a task; steer it or wait for task_end/);
    while (!(await run.next()).done) {
      // Read the task to its end.
    }
    const compaction = session.compact()[Symbol.asyncIterator]();
    await compaction.next();
    expect(session.isCompacting).toBe(true);
    expect(() => session.run("Again.")).toThrow(/is compacting its context; wait for compaction_end/);
    expect(session.steer("more")).toBe(false);
    while (!(await compaction.next()).done) {
      // Read the compaction to its end.
    }
    expect(session.isCompacting).toBe(false);
    await session.dispose();
  });

  it("says why when there is nothing to compact, and leaves the session as it was", async () => {
    const { env, session } = await start([{ text: "unused" }]);
    const messages = await collect(session.compact());
    expect(eventsOf(messages, "compaction_end")).toEqual([
      expect.objectContaining({ status: "failed", error_message: expect.stringMatching(/context is empty/) }),
    ]);
    expect(env.llm.requests).toHaveLength(0);
    expect(session.tracePath).toMatch(/_001\.jsonl$/);
    await session.dispose();
  });
});
