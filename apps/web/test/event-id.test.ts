import { describe, expect, it } from "vitest";
import { hrefOf, parseRoute } from "../src/router.js";
import { isAtOrBefore } from "../src/stream/event-id.js";

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
