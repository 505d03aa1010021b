import { describe, expect, it } from "vitest";
import { formatCost, relativeTime } from "../src/sessions/relative-time.js";
import { matchesSearch } from "../src/sessions/session-filter.js";

const now = new Date("2026-06-15T12:00:00Z");
const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000).toISOString();

describe("relativeTime: when a session was created or last active, as a person says it", () => {
  it("counts in the largest whole unit", () => {
    expect(relativeTime(ago(10), now)).toBe("just now");
    expect(relativeTime(ago(90), now)).toBe("1 minute ago");
    expect(relativeTime(ago(5 * 60), now)).toBe("5 minutes ago");
    expect(relativeTime(ago(3 * 3600 + 50 * 60), now)).toBe("3 hours ago");
    expect(relativeTime(ago(26 * 3600), now)).toBe("yesterday");
    expect(relativeTime(ago(3 * 86_400), now)).toBe("3 days ago");
    expect(relativeTime(ago(15 * 86_400), now)).toBe("2 weeks ago");
    expect(relativeTime(ago(400 * 86_400), now)).toBe("last year");
  });

  it("leaves a time it cannot read as it is, and says a time ahead (a skewed clock) as ahead", () => {
    expect(relativeTime("not a time", now)).toBe("not a time");
    expect(relativeTime(ago(-2 * 3600), now)).toBe("in 2 hours");
  });
});

describe("formatCost", () => {
  it("shows cents, four decimals below a cent, and a dash when no price is known", () => {
    expect(formatCost(null)).toBe("—");
    expect(formatCost(0)).toBe("$0.00");
    expect(formatCost(0.00123)).toBe("$0.0012");
    expect(formatCost(1.5)).toBe("$1.50");
  });
});

describe("matchesSearch: the sessions page's search box", () => {
  const session = { title: "Fix the Login page", workspace: "/home/ann/shop" };

  it("matches every word in the title or the workspace, ignoring case", () => {
    expect(matchesSearch(session, "")).toBe(true);
    expect(matchesSearch(session, "login")).toBe(true);
    expect(matchesSearch(session, "SHOP")).toBe(true);
    expect(matchesSearch(session, "login shop")).toBe(true);
    expect(matchesSearch(session, "login blog")).toBe(false);
    expect(matchesSearch(session, "checkout")).toBe(false);
  });
});
