import { assistantText, taskEnd, tokenUsage, userText, withOrigin } from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import { formatUsd, usageOf, usageText } from "../src/stream/usage.js";

const counts = (total: number, output: number) => ({ cache_read: 0, cache_write: 0, output, total });

describe("usage from the token_usage events", () => {
  it("sums per task and per session; the context fill is the newest request; a subagent's requests are its own", () => {
    const records = [
      userText("one"),
      tokenUsage(counts(1000, 100), counts(1000, 100), { request_cost_usd: 0.01 }),
      withOrigin(tokenUsage(counts(50_000, 10), counts(50_000, 10), { request_cost_usd: 5 }), "child"),
      tokenUsage(counts(1500, 50), counts(2500, 150), { request_cost_usd: 0.02 }),
      assistantText("done"),
      taskEnd("completed"),
      userText("two"),
      tokenUsage(counts(1800, 20), counts(4300, 170)),
      taskEnd("aborted"),
    ];
    const usage = usageOf(records);
    expect(usage.session).toEqual({ requests: 3, totalTokens: 4300, outputTokens: 170, costUsd: 0.03 });
    expect(usage.tasks).toEqual({
      r5: { requests: 2, totalTokens: 2500, outputTokens: 150, costUsd: 0.03 },
      r8: { requests: 1, totalTokens: 1800, outputTokens: 20 },
    });
    expect(usage.contextTokens).toBe(1800);
    expect(usageText(usage.tasks.r5)).toBe("2,500 tokens · $0.0300");
    expect(usageText(usage.tasks.r8)).toBe("1,800 tokens");
  });

  it("is empty before any request, and shows dollars with enough digits", () => {
    expect(usageOf([userText("hi")])).toEqual({
      session: { requests: 0, totalTokens: 0, outputTokens: 0 },
      tasks: {},
    });
    expect(formatUsd(0.00012)).toBe("$0.0001");
    expect(formatUsd(12.345)).toBe("$12.35");
  });
});
