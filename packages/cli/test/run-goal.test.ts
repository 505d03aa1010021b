import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { fakeOpenAiPerTest, kindOf, penguin, readJsonLines, tempDir, traceFiles } from "./helpers.js";

const start = fakeOpenAiPerTest("sk-test-penguin-goal-0123456789");

/** The model sets the goal's status with one command (the test knows the data root, not the session id). */
const setGoalStatus = (dataRoot: string, status: string) => ({
  tool_calls: [
    {
      name: "exec_command",
      arguments: {
        description: "Record the goal's status",
        cmd: `sed -i 's/^status: active$/${status}/' ${join(dataRoot, "scratchpad")}/*/GOAL.yaml`,
      },
    },
  ],
});

describe("penguin run --goal", () => {
  test("works round after round until the model marks the goal complete, prints the outcome and exits 0", async () => {
    const { llm, env } = await start([]);
    llm.setScript([
      { text: "Half of it is done." },
      setGoalStatus(env.PENGUIN_HOME, "status: complete"),
      { text: "All of it is done." },
    ]);
    const r = await penguin(
      ["run", "--goal", "--model", "openai/fake-model", "-w", tempDir("ws"), "-m", "Write the notes."],
      { env },
    );
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.exitCode).toBe(0);
    expect(llm.requests).toHaveLength(3);
    expect(r.stdout).toContain("All of it is done.");
    expect(r.stderr).toMatch(/goal: complete after 3 rounds, \d+ tokens/);
    const [trace] = traceFiles(env.PENGUIN_HOME);
    expect(readJsonLines(trace).map(kindOf).at(-1)).toBe("goal_finished");
  });

  test("a goal the model reports blocked exits 1 with its reason; --json ends with goal_finished", async () => {
    const { llm, env } = await start([]);
    llm.setScript([
      setGoalStatus(env.PENGUIN_HOME, "status: blocked\\nreason: no access to the bucket"),
      { text: "I am blocked." },
    ]);
    const r = await penguin(
      [
        "run",
        "--goal",
        "--json",
        "--model",
        "openai/fake-model",
        "-w",
        tempDir("ws"),
        "-m",
        "Sync the bucket.",
      ],
      { env },
    );
    expect(r.exitCode).toBe(1);
    const last = JSON.parse(r.stdout.trim().split("\n").at(-1) ?? "{}");
    expect(last.payload).toMatchObject({
      type: "goal_finished",
      outcome: "blocked",
      rounds: 2,
      reason: "no access to the bucket",
    });
  });

  test("--goal-budget spends at most that many tokens, then a wrap-up round: budget_limited, exit 1", async () => {
    const { llm, env } = await start([]);
    const usage = { input_tokens: 200, output_tokens: 20 };
    llm.setScript([
      { text: "Round one.", usage },
      { text: "Wrapping up.", usage },
      { text: "never requested" },
    ]);
    const r = await penguin(
      [
        ...["run", "--goal", "--goal-budget", "100", "--model", "openai/fake-model"],
        ...["-w", tempDir("ws"), "-m", "Write the notes."],
      ],
      { env },
    );
    expect(r.exitCode).toBe(1);
    expect(llm.requests).toHaveLength(2);
    expect(r.stderr).toContain("goal: budget_limited after 2 rounds, 440 tokens");
    expect(r.stderr).toContain("the goal's token budget of 100 is spent (220 used)");
  });

  test.each([
    [["--goal-budget", "500"], "--goal-budget needs --goal"],
    [["--goal", "--goal-budget", "0"], '--goal-budget takes a positive whole number, not "0"'],
  ])("%j is a usage error (exit 2) before any request", async (flags, message) => {
    const { llm, env } = await start([]);
    const r = await penguin(
      ["run", ...flags, "--model", "openai/fake-model", "-w", tempDir("ws"), "-m", "x"],
      {
        env,
      },
    );
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(message);
    expect(llm.requests).toHaveLength(0);
  });
});
