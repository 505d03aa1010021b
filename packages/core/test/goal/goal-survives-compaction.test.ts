import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import {
  asksForSummary,
  COMPACT_PROMPT,
  eventsOf,
  printTurn,
  summaryReplies,
} from "../compaction/support.js";
import { collect, MODEL, RETRY_FAST, setup } from "../sdk/fixtures.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";
import { contentText, goalFinishedOf, setStatus } from "./support.js";

// "Compaction keeps the goal": a goal whose rounds outgrow a small window is compacted on the
// way, and every request after that still carries the objective, until the model completes it.

const start = cleanedUpAfterEach(setup);
const WINDOW = 32_000;
const PRINT_ROUNDS = 40;
const OBJECTIVE = "Print the forty reports, then mark the goal complete.";

type ChatBody = { messages: { role: string; content?: unknown }[] };

describe("a goal under a small window", () => {
  it("compacts, keeps the [goal] block in every request after it, names the goal file, and completes", {
    timeout: 60_000,
  }, async () => {
    const summaries = summaryReplies([]);
    const env = await start([], {
      context_window: WINDOW,
      pick: summaries.pick,
      config: { compaction: { prompt: COMPACT_PROMPT } },
    });
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    const goalFile = join(session.scratchpadDir, "GOAL.yaml");
    // Each round prints 4000 characters: about 1100 tokens more context a round.
    const rounds = Array.from({ length: PRINT_ROUNDS }, (_, n) => printTurn(`call_${n + 1}`, 4_000));
    env.llm.setScript([...rounds, ...setStatus(goalFile, "status: complete"), { text: "All printed." }]);
    const messages = await collect(session.run(OBJECTIVE, { approve: allowAll, goal: {} }));
    await session.dispose();

    const ends = eventsOf(messages, "compaction_end");
    expect(ends.length).toBeGreaterThanOrEqual(1);
    expect(ends.every((end) => end.status === "completed" && end.reason === "context")).toBe(true);
    expect(goalFinishedOf(messages)).toMatchObject({ outcome: "complete", rounds: PRINT_ROUNDS + 3 });

    const bodies = env.llm.requests
      .filter((r) => r.protocol === "openai-chat")
      .map((r) => r.body as Record<string, unknown>);
    const firstSummary = bodies.findIndex(asksForSummary);
    expect(firstSummary).toBeGreaterThan(0);
    const after = bodies.slice(firstSummary + 1).filter((body) => !asksForSummary(body));
    expect(after.length).toBeGreaterThan(2);
    for (const body of after) {
      const { messages: chat } = body as ChatBody;
      const last = contentText(chat.at(-1));
      expect(last).toMatch(/\[goal\]\nObjective: Print the forty reports, then mark the goal complete\./);
      // The compacted context starts from the summary, which names the goal file and its status.
      expect(contentText(chat[1])).toMatch(/^\[context_summary\]/);
      expect(contentText(chat[1])).toContain("- goal file: ");
      expect(contentText(chat[1])).toContain("GOAL.yaml (status: active)");
    }
  });
});
