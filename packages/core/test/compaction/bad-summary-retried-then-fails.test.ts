import type { ScriptTurnInput } from "@penguin/fake-llm";
import { afterEach, describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { chatMessages, collect, MODEL, RETRY_FAST, setup } from "../sdk/fixtures.js";
import { COMPACT_PROMPT, contentText, eventsOf, printTurn, summaryReplies } from "./support.js";

type Env = Awaited<ReturnType<typeof setup>>;
const envs: Env[] = [];
afterEach(async () => {
  await Promise.all(envs.splice(0).map((env) => env.cleanup()));
});

const BIG_USAGE = { input_tokens: 5_000, output_tokens: 20, cache_read_tokens: 0, cache_write_tokens: 0 };
const EMPTY = { text: "[summary]   [/summary]" };
/** The connection drops in the middle of the summary. */
const DROPPED = { text: "[summary]The user asked for a long", chunk_size: 8, cut: { after_chunks: 2 } };
/** The stream ends cleanly, but the summary was never closed (a reply cut by its token limit). */
const UNCLOSED = { text: "[summary]The user asked for" };

async function runWithSummaries(replies: ScriptTurnInput[]) {
  const summaries = summaryReplies(replies, UNCLOSED);
  const env = await setup([{ ...printTurn("call_a", 100), usage: BIG_USAGE }, { text: "Done." }], {
    pick: summaries.pick,
    config: { compaction: { max_context_length: 4_000, prompt: COMPACT_PROMPT } },
  });
  envs.push(env);
  const session = await env.agent.createSession({
    workspaceDir: env.workspaceDir,
    model: MODEL,
    retry: RETRY_FAST,
  });
  const messages = await collect(session.run("Print something.", { approve: allowAll }));
  await session.dispose();
  return { env, session, messages, summaries };
}

describe("a summary that comes back empty or cut", () => {
  it("is retried with a note saying what was wrong, and the retry's summary is used", async () => {
    const { env, messages, summaries } = await runWithSummaries([
      EMPTY,
      DROPPED,
      { text: "[summary]Printed 100 x.[/summary]" },
    ]);
    expect(summaries.asked).toBe(3);
    expect(messages.at(-1)?.payload).toMatchObject({ type: "task_end", status: "completed" });
    const ends = eventsOf(messages, "request_end").slice(1, 4);
    expect(ends.map((end) => [end.status, end.attempt])).toEqual([
      ["malformed", 1],
      ["failed", 2],
      ["completed", 3],
    ]);
    expect(ends[0]!.error_message).toMatch(/block is empty/);
    expect(ends[0]!.retry_in_ms).toBeGreaterThan(0);
    // The second attempt carries a note about the empty summary after the prompt.
    const second = chatMessages(env.llm, 2);
    expect(contentText(second.at(-1))).toContain(COMPACT_PROMPT);
    expect(contentText(second.at(-1))).toMatch(
      /could not be used as the summary: the \[summary\] block is empty/,
    );
    expect(eventsOf(messages, "compaction_end")).toEqual([
      expect.objectContaining({ status: "completed", reason: "context", mode: "summarize" }),
    ]);
    expect(contentText(chatMessages(env.llm, 4)[1])).toContain("Printed 100 x.");
  });

  it("gives up after the retry ladder: compaction_end says why, the context is unchanged, the task goes on", async () => {
    const { env, session, messages, summaries } = await runWithSummaries([EMPTY, DROPPED]);
    // The first attempt and 5 retries; the rest answer with an unclosed summary.
    expect(summaries.asked).toBe(6);
    expect(messages.at(-1)?.payload).toMatchObject({ type: "task_end", status: "completed" });
    const [end] = eventsOf(messages, "compaction_end");
    expect(end).toMatchObject({ status: "malformed", attempt: 6, reason: "context", mode: "summarize" });
    expect(end!.error_message).toMatch(/summary request failed after 6 attempts: .*never closed/);
    // The request after the failed compaction is the one before it, plus the turn: nothing was lost.
    const before = chatMessages(env.llm, 0);
    const after = chatMessages(env.llm, 7);
    expect(JSON.stringify(after.slice(0, before.length))).toBe(JSON.stringify(before));
    expect(after.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect(env.llm.requests).toHaveLength(8);
    // No new trace file: the context did not change.
    expect(session.tracePath).toMatch(/_001\.jsonl$/);
  });
});
