import { readdirSync } from "node:fs";
import { dirname } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { chatMessages, collect, MODEL, setup, traceRecords } from "../sdk/fixtures.js";
import { COMPACT_PROMPT, contentText, eventsOf, payloadType, printTurn, summaryReplies } from "./support.js";

type Env = Awaited<ReturnType<typeof setup>>;
const envs: Env[] = [];
afterEach(async () => {
  await Promise.all(envs.splice(0).map((env) => env.cleanup()));
});

/** The first turn reports 5000 tokens: over the 4000 of max_context_length, so a compaction follows it. */
const BIG_USAGE = { input_tokens: 5_000, output_tokens: 20, cache_read_tokens: 0, cache_write_tokens: 0 };

describe("a context compaction in the middle of a task", () => {
  it("sends the same system prompt, tools and messages as the request before it, then the prompt; the task goes on from the summary", async () => {
    const summaries = summaryReplies([
      { text: "[summary]The user asked to print; 200 x were printed.[/summary]" },
    ]);
    const env = await setup([{ ...printTurn("call_a", 200), usage: BIG_USAGE }, { text: "Done." }], {
      pick: summaries.pick,
      config: { compaction: { max_context_length: 4_000, prompt: COMPACT_PROMPT } },
    });
    envs.push(env);
    const session = await env.agent.createSession({ workspaceDir: env.workspaceDir, model: MODEL });
    const messages = await collect(session.run("Print something.", { approve: allowAll }));
    await session.dispose();

    expect(messages.at(-1)?.payload).toMatchObject({ type: "task_end", status: "completed" });
    expect(env.llm.requests).toHaveLength(3);
    const [before, compaction, after] = env.llm.requests.map((r) => r.body as Record<string, unknown>);
    // Same tools, same system prompt, and the earlier request's messages as a prefix, byte for byte.
    expect(JSON.stringify(compaction!.tools)).toBe(JSON.stringify(before!.tools));
    const earlier = chatMessages(env.llm, 0);
    const asked = chatMessages(env.llm, 1);
    expect(asked[0]).toMatchObject({ role: "system" });
    expect(JSON.stringify(asked.slice(0, earlier.length))).toBe(JSON.stringify(earlier));
    expect(asked.slice(earlier.length).map((m) => m.role)).toEqual(["assistant", "tool", "user"]);
    expect(contentText(asked.at(-1))).toBe(COMPACT_PROMPT);
    expect(JSON.stringify(after!.tools)).toBe(JSON.stringify(before!.tools));

    // The request after it: the system prompt, the summary, the task's user message (consecutive
    // user items share one chat message).
    const next = chatMessages(env.llm, 2);
    expect(JSON.stringify(next[0])).toBe(JSON.stringify(earlier[0]));
    expect(next.map((m) => m.role)).toEqual(["system", "user"]);
    expect(contentText(next[1])).toMatch(
      /^\[context_summary\]\n[\s\S]*200 x were printed\.\n\[\/context_summary\]\n\nPrint something\.$/,
    );

    // The stream: begin, the summary as partial_text, end; the task then goes on.
    const types = messages.map(payloadType);
    const begin = types.indexOf("compaction_begin");
    const end = types.indexOf("compaction_end");
    expect(eventsOf(messages, "compaction_begin")).toEqual([
      { type: "compaction_begin", reason: "context", mode: "summarize" },
    ]);
    expect(eventsOf(messages, "compaction_end")[0]).toMatchObject({ status: "completed", reason: "context" });
    expect(types.slice(begin, end)).toContain("partial_text");
    expect(types.indexOf("tool_call_output")).toBeLessThan(begin);

    // The trace: a second file for the new context, opening with session_meta and tool_list_ready.
    const files = readdirSync(dirname(session.tracePath)).sort();
    expect(files).toEqual([`${session.id}_001.jsonl`, `${session.id}_002.jsonl`]);
    const second = traceRecords(session.tracePath);
    expect(second.slice(0, 5).map(payloadType)).toEqual([
      "session_meta",
      "tool_list_ready",
      "text",
      "text",
      "compaction_end",
    ]);
  });
});
