import { describe, expect, it } from "vitest";
import { MAX_GOAL_ROUNDS } from "../../src/goal/limits.js";
import { contentText, goalFinishedOf, payloadsOf, runGoal, setStatus } from "./support.js";

// Each round reports 100 uncached input tokens, 50 read from the cache and 10 of output: the
// goal counts total − cache_read = 110 a round.
const usage = { input_tokens: 100, cache_read_tokens: 50, output_tokens: 10 };

describe("a goal out of budget", () => {
  it("gets one wrap-up round once the budget is spent, then ends budget_limited", async () => {
    const run = await runGoal(
      "Rewrite the parser.",
      () => [
        { text: "Round one.", usage },
        { text: "Round two.", usage },
        { text: "Wrapping up: the lexer is done, the parser is left.", usage },
        { text: "never requested" },
      ],
      { goal: { budget: 150 } },
    );
    // 110 after the first round (under 150): continued; 220 after the second: the wrap-up round.
    expect(run.requests).toHaveLength(3);
    expect(goalFinishedOf(run.messages)).toEqual({
      type: "goal_finished",
      outcome: "budget_limited",
      rounds: 3,
      tokens_used: 330,
      reason: "the goal's token budget of 150 is spent (220 used)",
    });
    const wrapUp = run.chat(2).at(-1);
    expect(contentText(wrapUp)).toMatch(
      /^The goal's token budget of 150 is spent \(220 used\)\. Wrap up in this round/,
    );
    expect(contentText(wrapUp)).toContain("This is the last round: the goal's budget is spent.");
    // The earlier rounds' [goal] blocks did not say so.
    expect(contentText(run.chat(1).at(-1))).not.toContain("last round");
    expect(payloadsOf(run.messages, "task_end")).toEqual([expect.objectContaining({ status: "completed" })]);
  });

  it("a status the model records in its wrap-up round is how the goal ends", async () => {
    const run = await runGoal(
      "Rewrite the parser.",
      (goalFile) => {
        const [readGoal, editGoal] = setStatus(goalFile, "status: complete");
        return [{ ...readGoal, usage }, { ...editGoal, usage }, { text: "never requested" }];
      },
      { goal: { budget: 100 } },
    );
    // Spent after the first round (the read): the second is the wrap-up, in which the model
    // records the goal complete; no third round is asked for.
    expect(run.requests).toHaveLength(2);
    expect(goalFinishedOf(run.messages)).toMatchObject({ outcome: "complete", rounds: 2, tokens_used: 220 });
  });

  it("a budget counts its subagents' requests too (what the session's token counts add up)", async () => {
    const run = await runGoal(
      "Survey the repository.",
      () => [
        {
          tool_calls: [
            { name: "run_subagent", arguments: { description: "packages", prompt: "List the packages." } },
          ],
          usage,
        },
        { text: "packages: a, b", usage },
        { text: "Summarized.", usage },
        { text: "Wrapped up.", usage },
      ],
      { goal: { budget: 300 } },
    );
    // Parent round 1 (110) + the child's request (110) + parent round 2 (110) = 330 > 300.
    expect(goalFinishedOf(run.messages)).toMatchObject({
      outcome: "budget_limited",
      rounds: 3,
      tokens_used: 440,
    });
  });

  it(`stops at the hard cap of ${MAX_GOAL_ROUNDS} rounds, the last one a wrap-up`, async () => {
    const rounds = Array.from({ length: MAX_GOAL_ROUNDS + 1 }, (_, i) => ({ text: `Round ${i + 1}.` }));
    const run = await runGoal("Never finish.", () => rounds);
    expect(run.requests).toHaveLength(MAX_GOAL_ROUNDS);
    expect(goalFinishedOf(run.messages)).toMatchObject({
      outcome: "budget_limited",
      rounds: MAX_GOAL_ROUNDS,
      reason: `the goal has reached its cap of ${MAX_GOAL_ROUNDS} rounds`,
    });
    expect(contentText(run.chat(MAX_GOAL_ROUNDS - 1).at(-1))).toContain("This is the last round");
  });
});

describe("goal options", () => {
  it.each([0, -5, 1.5, Number.NaN])("a budget of %s is refused before anything runs", async (budget) => {
    await expect(runGoal("x", () => [], { goal: { budget } })).rejects.toThrow(
      /goal\.budget must be a whole number of tokens above 0/,
    );
  });
});
