import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { ESTIMATED_CHARS_PER_TOKEN } from "@penguin/fake-llm";
import { scratchpadRoot, tracesDir } from "@penguin/state";
import { readSession, rebuildContext } from "@penguin/trace";
import { afterEach, describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { collect, MODEL, setup, traceRecords } from "../sdk/fixtures.js";
import { COMPACT_PROMPT, eventsOf, payloadType, printTurn, summaryReplies } from "./support.js";

type Env = Awaited<ReturnType<typeof setup>>;
const envs: Env[] = [];
afterEach(async () => {
  await Promise.all(envs.splice(0).map((env) => env.cleanup()));
});

const ROUNDS = 300;
const WINDOW = 32_000;

/** The tokens fake-llm bills for a request body (its own estimate: the usage it reports). */
function billedTokens(body: Record<string, unknown>): number {
  const chars = JSON.stringify(body.messages).length + JSON.stringify(body.tools ?? []).length;
  return Math.ceil(chars / ESTIMATED_CHARS_PER_TOKEN);
}

describe("a 300-round session under a 32k-token window", () => {
  it("completes, compacting whenever the reported usage reaches the threshold", {
    timeout: 180_000,
  }, async () => {
    const summaries = summaryReplies([]);
    // Each round prints 2000 characters: the context grows by about 550 tokens a round.
    const rounds = Array.from({ length: ROUNDS - 1 }, (_, n) => printTurn(`call_${n + 1}`, 2_000));
    const env = await setup([...rounds, { text: "All 300 rounds done." }], {
      context_window: WINDOW,
      pick: summaries.pick,
      config: { compaction: { prompt: COMPACT_PROMPT } },
    });
    envs.push(env);
    const session = await env.agent.createSession({ workspaceDir: env.workspaceDir, model: MODEL });
    const messages = await collect(session.run("Print, 299 times.", { approve: allowAll }));
    await session.dispose();

    expect(messages.at(-1)?.payload).toMatchObject({ type: "task_end", status: "completed" });
    expect(eventsOf(messages, "limit_reached")).toEqual([]);
    const ends = eventsOf(messages, "compaction_end");
    expect(ends.length).toBeGreaterThanOrEqual(5);
    expect(ends.every((end) => end.status === "completed" && end.reason === "context")).toBe(true);
    expect(summaries.asked).toBe(ends.length);
    // Every round's request was made, and none came near the window.
    const scripted = env.llm.requests.filter((r) => r.turnIndex !== null);
    expect(scripted).toHaveLength(ROUNDS);
    const largest = Math.max(...env.llm.requests.map((r) => billedTokens(r.body as Record<string, unknown>)));
    expect(largest).toBeLessThan(WINDOW);

    // One trace file per model context, each opening with session_meta and tool_list_ready.
    const folder = dirname(session.tracePath);
    const files = readdirSync(folder)
      .filter((name) => name.startsWith(session.id))
      .sort();
    expect(files).toHaveLength(ends.length + 1);
    for (const file of files) {
      expect(traceRecords(join(folder, file)).slice(0, 2).map(payloadType)).toEqual([
        "session_meta",
        "tool_list_ready",
      ]);
    }
    // A resume reads the newest context: the last summary, the task's message, the rounds since.
    const location = { tracesDir: tracesDir(env.dataRoot), scratchpadRoot: scratchpadRoot(env.dataRoot) };
    const resumed = rebuildContext(readSession(location, session.id).records);
    expect((resumed.messages[0]!.payload as { text: string }).text).toMatch(/^\[context_summary\]/);
    expect((resumed.messages[1]!.payload as { text: string }).text).toBe("Print, 299 times.");
    expect(resumed.turns).toBe(ROUNDS);
  });
});
