import { describe, expect, it } from "vitest";
import { ActivityWaiters } from "../../src/processes/activity-waiters.js";

// Command sessions and subagents share one way to wait for news: a wait ends on the next wake,
// after its time, or on abort, whichever comes first.

const settled = (promise: Promise<void>) =>
  Promise.race([promise.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 20))]);

describe("ActivityWaiters", () => {
  it("ends every wait on wake", async () => {
    const activity = new ActivityWaiters();
    const waits = [activity.wait(60_000), activity.wait(60_000)];
    expect(await settled(waits[0]!)).toBe(false);
    activity.wake();
    expect(await Promise.all(waits.map(settled))).toEqual([true, true]);
  });

  it("ends a wait after its time, or at once with no time or an aborted signal", async () => {
    const activity = new ActivityWaiters();
    expect(await settled(activity.wait(1))).toBe(true);
    expect(await settled(activity.wait(0))).toBe(true);
    expect(await settled(activity.wait(60_000, AbortSignal.abort()))).toBe(true);
  });

  it("ends a wait when its signal aborts", async () => {
    const activity = new ActivityWaiters();
    const controller = new AbortController();
    const wait = activity.wait(60_000, controller.signal);
    controller.abort();
    expect(await settled(wait)).toBe(true);
  });
});
