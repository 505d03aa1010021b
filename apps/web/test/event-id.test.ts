import { describe, expect, it } from "vitest";
import { hrefOf, parseRoute } from "../src/router.js";
import { afterSeed, isAtOrBefore } from "../src/stream/event-id.js";

describe("isAtOrBefore: which live events a loaded page already includes", () => {
  it("compares the sequence numbers of one server process", () => {
    expect(isAtOrBefore("abc1-9", "abc1-10")).toBe(true);
    expect(isAtOrBefore("abc1-10", "abc1-10")).toBe(true);
    expect(isAtOrBefore("abc1-11", "abc1-10")).toBe(false);
  });

  it("never skips an event of another process, without a reference, or with an id it cannot read", () => {
    expect(isAtOrBefore("zzz9-1", "abc1-10")).toBe(false);
    expect(isAtOrBefore("abc1-1", undefined)).toBe(false);
    expect(isAtOrBefore("", "abc1-10")).toBe(false);
    expect(isAtOrBefore("not-an-id!", "abc1-10")).toBe(false);
  });
});

describe("afterSeed: the buffered events a seed does not include", () => {
  const items = (...ids: string[]) => ids.map((id) => ({ id }));

  it("keeps the events after the seed's newest, by position when the stream mixes instances' ids", () => {
    // A's events, and one B published (a rename made on B) between them.
    const buffer = items("aaaa-7", "bbbb-3", "aaaa-8", "", "aaaa-9", "bbbb-4");
    expect(afterSeed(buffer, "bbbb-3").map((item) => item.id)).toEqual(["aaaa-8", "aaaa-9", "bbbb-4"]);
    expect(afterSeed(buffer, "aaaa-8").map((item) => item.id)).toEqual(["aaaa-9", "bbbb-4"]);
  });

  it("falls back to sequence numbers when the buffer does not hold the seed's newest, and keeps all without one", () => {
    expect(afterSeed(items("abc1-9", "abc1-11", "abc1-12"), "abc1-10").map((item) => item.id)).toEqual([
      "abc1-11",
      "abc1-12",
    ]);
    expect(afterSeed(items("abc1-1", "", "abc1-2"), undefined).map((item) => item.id)).toEqual([
      "abc1-1",
      "abc1-2",
    ]);
  });
});

describe("hash routes", () => {
  it("round-trips every page, ids with unusual characters included", () => {
    for (const route of [
      { page: "sessions" },
      { page: "chat", sessionId: "s 1/2" },
      { page: "trace", sessionId: "abc" },
      { page: "agents" },
      { page: "agent", agentId: "default" },
    ] as const) {
      expect(parseRoute(hrefOf(route))).toEqual(route);
    }
    expect(parseRoute("")).toEqual({ page: "sessions" });
    expect(parseRoute("#/nowhere/at/all")).toEqual({ page: "sessions" });
  });
});
