import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { contentText, goalFinishedOf, payloadsOf, runGoal, setStatus } from "./support.js";

describe("a goal the model completes", () => {
  it("runs round after round until the model sets status complete in GOAL.yaml, then reports complete", async () => {
    const run = await runGoal("Make the release notes for 2.0.", (goalFile) => [
      { text: "I drafted the first half." },
      { text: "I drafted the second half." },
      ...setStatus(goalFile, "status: complete"),
      { text: "The release notes are done." },
    ]);
    // Two early ends of turn were continued by the harness; the fifth request saw the goal complete.
    expect(run.requests).toHaveLength(5);
    expect(goalFinishedOf(run.messages)).toEqual({
      type: "goal_finished",
      outcome: "complete",
      rounds: 5,
      tokens_used: expect.any(Number),
    });
    expect(goalFinishedOf(run.messages).tokens_used).toBeGreaterThan(0);
    // One task, ended completed, then goal_finished as the run's last message, traced too.
    const ends = payloadsOf(run.messages, "task_end");
    expect(ends).toEqual([expect.objectContaining({ status: "completed" })]);
    expect(run.messages.at(-1)?.payload).toMatchObject({ type: "goal_finished" });
    expect(run.trace.at(-1)?.payload).toMatchObject({ type: "goal_finished", outcome: "complete" });
    expect(readFileSync(run.goalFile, "utf8")).toContain("status: complete");
    expect(readFileSync(run.goalFile, "utf8")).toContain("objective: Make the release notes for 2.0.");
  });

  it("starts each next round itself with a short harness message that stays in the context and the trace", async () => {
    const run = await runGoal("Tidy the changelog.", (goalFile) => [
      { text: "Step one done." },
      ...setStatus(goalFile, "status: complete"),
      { text: "Done." },
    ]);
    const second = run.chat(1);
    // The second request: the objective, the model's early end, then the continuation (which
    // the Chat adapter joins with the [goal] block that follows it, both being user text).
    expect(second.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(contentText(second[1])).toBe("Tidy the changelog.");
    expect(contentText(second[3])).toMatch(
      /^The goal is not complete yet\. Continue with the next step\.\n\n\[goal\]\n/,
    );
    const continuations = run.trace.filter(
      (m) => m.payload.type === "text" && (m.payload as { sender?: string }).sender === "harness",
    );
    expect(continuations).toHaveLength(1);
    // No continuation after a round with tool calls: their outputs are the next round's input.
    expect(run.chat(2).at(-2)?.role).toBe("tool");
    expect(contentText(run.chat(2).at(-1))).toMatch(/^\[goal\]\n/);
    expect(goalFinishedOf(run.messages)).toMatchObject({ outcome: "complete", rounds: 4 });
  });
});
