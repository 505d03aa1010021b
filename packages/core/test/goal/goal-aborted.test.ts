import { describe, expect, it } from "vitest";
import { goalFinishedOf, payloadsOf, runGoal } from "./support.js";

describe("a goal that is cut short ends aborted", () => {
  it("an abort through the signal in the middle of a round: aborted, with the interrupt as the reason", async () => {
    let begun = 0;
    let aborted = false;
    const run = await runGoal(
      "Port the CLI.",
      () => [
        { text: "Round one." },
        { text: "Round two is slow to write", chunk_size: 2, chunk_delay_ms: 20 },
        { text: "never requested" },
      ],
      {
        onMessage: (m, abort) => {
          const type = (m.payload as { type: string }).type;
          if (type === "request_begin") begun++;
          // The second round has begun streaming its text: the user presses stop.
          if (!aborted && begun === 2 && type === "partial_text") {
            aborted = true;
            abort();
          }
        },
      },
    );
    expect(aborted).toBe(true);
    expect(goalFinishedOf(run.messages)).toMatchObject({
      outcome: "aborted",
      rounds: 2,
      reason: "interrupted by the user",
    });
    expect(payloadsOf(run.messages, "task_end")).toEqual([expect.objectContaining({ status: "aborted" })]);
    expect(run.messages.at(-1)?.payload).toMatchObject({ type: "goal_finished" });
    expect(run.trace.at(-1)?.payload).toMatchObject({ type: "goal_finished", outcome: "aborted" });
  });

  it("max_turns reached: aborted, with the limit's message", async () => {
    const run = await runGoal(
      "Port the CLI.",
      () => [{ text: "One." }, { text: "Two." }, { text: "never requested" }],
      { maxTurns: 2 },
    );
    expect(run.requests).toHaveLength(2);
    expect(payloadsOf(run.messages, "limit_reached")).toEqual([
      expect.objectContaining({ limit: "max_turns" }),
    ]);
    const finished = goalFinishedOf(run.messages);
    expect(finished).toMatchObject({ outcome: "aborted", rounds: 2 });
    expect(finished.reason).toMatch(/max turns/i);
  });

  it("a request that fails for good: aborted, with the failure as the reason", async () => {
    const run = await runGoal("Port the CLI.", () => [
      { text: "One." },
      { error: { status: 401, message: "key revoked" } },
    ]);
    const finished = goalFinishedOf(run.messages);
    expect(finished).toMatchObject({ outcome: "aborted", rounds: 2 });
    expect(finished.reason).toMatch(/key revoked/);
  });

  it("a caller that stops reading still gets goal_finished in the trace", async () => {
    const run = await runGoal("Port the CLI.", () => [{ text: "One." }, { text: "Two." }], {
      stopAt: "request_end",
    });
    expect(run.trace.at(-1)?.payload).toMatchObject({ type: "goal_finished", outcome: "aborted" });
  });
});
