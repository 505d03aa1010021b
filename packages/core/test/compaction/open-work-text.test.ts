import { describe, expect, it } from "vitest";
import {
  askOpenWork,
  MAX_OPEN_COMMAND_CHARS,
  MAX_OPEN_ITEMS_LISTED,
  openWorkText,
} from "../../src/engine/compaction/open-work.js";

describe("the open-work list of a compacted context", () => {
  it("is absent when nothing is open, so the summary stands alone", () => {
    expect(openWorkText({ commands: [], subagents: [] })).toBeUndefined();
  });

  it("stays short: a long command line is cut to one line, and past the cap the rest are counted", () => {
    const heredoc = `cat > big.txt <<'END'\n${"y".repeat(5_000)}\nEND`;
    const commands = Array.from({ length: MAX_OPEN_ITEMS_LISTED + 3 }, (_, n) => ({
      id: `cmd_${n + 1}`,
      command: n === 0 ? heredoc : `sleep ${n}`,
      startedBy: "run_command",
    }));
    const text = openWorkText({
      commands,
      subagents: [{ id: "sub_1", status: "running" }],
      goalFile: { path: "/s/GOAL.yaml", status: "active" },
      planFile: "/s/PLAN.md",
    });
    const lines = text?.split("\n") ?? [];
    expect(lines[0]).toBe("Still open when the context was compacted:");
    expect(lines[1]).toBe("- goal file: /s/GOAL.yaml (status: active)");
    expect(lines[2]).toBe("- plan file: /s/PLAN.md");
    expect(lines[3]).toMatch(
      /^- command cmd_1 \(run_command\), running: cat > big\.txt <<'END' y+… \[\d+ more chars\]$/,
    );
    expect(lines[3]!.length).toBeLessThan(MAX_OPEN_COMMAND_CHARS + 80);
    expect(lines.filter((line) => line.startsWith("- command "))).toHaveLength(MAX_OPEN_ITEMS_LISTED);
    expect(lines).toContain("- ... and 3 more running commands");
    expect(lines.at(-1)).toBe("- subagent sub_1, running");
  });
});

describe("asking the session for its open work", () => {
  it("gives the list, nothing without a provider, and a line saying why when the provider fails", async () => {
    expect(await askOpenWork(undefined)).toBeUndefined();
    expect(await askOpenWork(async () => ({ commands: [], subagents: [], planFile: "/s/PLAN.md" }))).toBe(
      "Still open when the context was compacted:\n- plan file: /s/PLAN.md",
    );
    const failing = async () => {
      throw new Error("the scratchpad is gone");
    };
    expect(await askOpenWork(failing)).toBe(
      "What was still open could not be listed (the scratchpad is gone); list_jobs and the subagent tools show it.",
    );
  });
});
