import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { readGoalStatus } from "../../src/goal/goal-file.js";
import { goalFinishedOf, payloadsOf, runGoal, setStatus } from "./support.js";

describe("a goal the model reports blocked", () => {
  it("ends blocked with the reason the model wrote in GOAL.yaml", async () => {
    const run = await runGoal("Migrate the staging database.", (goalFile) => [
      { text: "The database refuses connections; I will try again." },
      ...setStatus(goalFile, "status: blocked\nreason: the staging database refuses connections"),
      { text: "I cannot go on without access to staging." },
    ]);
    expect(run.requests).toHaveLength(4);
    expect(goalFinishedOf(run.messages)).toEqual({
      type: "goal_finished",
      outcome: "blocked",
      rounds: 4,
      tokens_used: expect.any(Number),
      reason: "the staging database refuses connections",
    });
    expect(payloadsOf(run.messages, "task_end")).toEqual([expect.objectContaining({ status: "completed" })]);
  });

  it("a status set while the model keeps calling tools is read when it ends its turn", async () => {
    const run = await runGoal("Update the docs.", (goalFile) => [
      ...setStatus(goalFile, "status: complete"),
      { tool_calls: [{ name: "exec_command", arguments: { description: "check", cmd: "echo checked" } }] },
      { text: "Done and checked." },
    ]);
    expect(run.requests).toHaveLength(4);
    expect(goalFinishedOf(run.messages)).toMatchObject({ outcome: "complete", rounds: 4 });
  });
});

describe("a GOAL.yaml that is not valid counts as blocked", () => {
  const cases: Array<[string, string, RegExp]> = [
    ["YAML that does not parse", "status: [complete", /is not valid YAML/],
    [
      "a status that is not one",
      "status: finished",
      /status: .*its status must be active, complete or blocked/,
    ],
  ];
  it.each(cases)("%s: blocked, with a reason that says so", async (_what, replacement, reason) => {
    const run = await runGoal("Fix the flaky test.", (goalFile) => [
      ...setStatus(goalFile, replacement),
      { text: "Recorded." },
    ]);
    const finished = goalFinishedOf(run.messages);
    expect(finished).toMatchObject({ outcome: "blocked", rounds: 3 });
    expect(finished.reason).toMatch(reason);
    expect(finished.reason).toContain(run.goalFile);
  });

  it("a goal file that was moved away: blocked, the reason says it could not be read", async () => {
    const run = await runGoal("Fix the flaky test.", (goalFile) => [
      {
        tool_calls: [
          {
            name: "exec_command",
            arguments: { description: "move the goal file", cmd: `mv '${goalFile}' '${goalFile}.old'` },
          },
        ],
      },
      { text: "Cleaned up." },
    ]);
    const finished = goalFinishedOf(run.messages);
    expect(finished).toMatchObject({ outcome: "blocked", rounds: 2 });
    expect(finished.reason).toMatch(/could not be read \(ENOENT/);
  });

  it("blocked without a reason still ends blocked, saying none was given", async () => {
    const run = await runGoal("Fix the flaky test.", (goalFile) => [
      ...setStatus(goalFile, "status: blocked"),
      { text: "Blocked." },
    ]);
    expect(goalFinishedOf(run.messages)).toMatchObject({
      outcome: "blocked",
      reason: "the model set status blocked without a reason",
    });
  });
});

describe("readGoalStatus", () => {
  it("reads what the system wrote as active, and a file that is not a mapping as blocked", async () => {
    const run = await runGoal("Anything.", (goalFile) => [
      ...setStatus(goalFile, "status: complete"),
      { text: "Done." },
    ]);
    writeFileSync(
      run.goalFile,
      readFileSync(run.goalFile, "utf8").replace("status: complete", "status: active"),
    );
    expect(await readGoalStatus(run.goalFile)).toEqual({ status: "active" });
    writeFileSync(run.goalFile, "- just\n- a list\n");
    expect(await readGoalStatus(run.goalFile)).toMatchObject({ status: "blocked", invalid: true });
  });
});
