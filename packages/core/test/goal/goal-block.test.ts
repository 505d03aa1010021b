import { describe, expect, it } from "vitest";
import { contentText, goalFinishedOf, runGoal, setStatus } from "./support.js";

describe("the [goal] block", () => {
  it("is the last user-side content of every request, with the objective and the current status", async () => {
    const run = await runGoal("Make every test pass.", (goalFile) => [
      { text: "Looking." },
      ...setStatus(goalFile, "status: blocked\nreason: CI is down"),
      { tool_calls: [{ name: "read_file", arguments: { file_path: goalFile } }] },
      { text: "Blocked on CI." },
    ]);
    expect(goalFinishedOf(run.messages)).toMatchObject({ outcome: "blocked", rounds: 5 });
    const blocks = run.requests.map((_, n) => {
      const last = run.chat(n).at(-1);
      expect(last?.role).toBe("user");
      const text = contentText(last);
      return text.slice(text.indexOf("[goal]"));
    });
    expect(blocks).toHaveLength(5);
    for (const block of blocks) {
      expect(block).toMatch(/^\[goal\]\nObjective: Make every test pass\.\nStatus: .*\n[\s\S]*\[\/goal\]$/);
      expect(block).toContain(run.goalFile);
    }
    // The status is read from the goal file for each request: active until the edit, then blocked.
    expect(blocks.map((b) => /Status: ([a-z]+)/.exec(b)?.[1])).toEqual([
      "active",
      "active",
      "active",
      "blocked",
      "blocked",
    ]);
    expect(blocks[3]).toContain("Status: blocked (CI is down)");
  });

  it("is not stored: neither the context the next request sends nor the trace holds an earlier one", async () => {
    const run = await runGoal("Make every test pass.", (goalFile) => [
      { text: "One." },
      { text: "Two." },
      ...setStatus(goalFile, "status: complete"),
      { text: "Done." },
    ]);
    // Each request carries exactly one [goal] block: the ones before it were not kept.
    for (let n = 0; n < run.requests.length; n++) {
      const all = run
        .chat(n)
        .map((m) => contentText(m))
        .join("\n");
      expect(all.match(/\[goal\]/g)).toHaveLength(1);
    }
    const traced = JSON.stringify(run.trace);
    expect(traced).not.toContain("[goal]");
    expect(traced).toContain("The goal is not complete yet.");
  });
});
