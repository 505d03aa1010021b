import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { fakeOpenAiPerTest, penguin, tempDir } from "./helpers.js";

// A real `penguin run` whose child (run_subagent, on the same fake model) sends the root a
// message: the live output shows the message once, as one compact line, and
// `penguin trace --agents` then shows the child under the root with its message counted.

const API_KEY = "sk-test-penguin-0123456789abcdef";
const start = fakeOpenAiPerTest(API_KEY);

/** The default agent with the extended toolset, where the messaging tools live. */
function extendedAgent(dataRoot: string): void {
  const dir = join(dataRoot, "agents", "default");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "system_config.yaml"), "tools:\n  preset: extended\n");
}

describe("agents at the terminal", () => {
  test("a child's message to the root is one line in the live output, and trace --agents shows the tree", async () => {
    // The parent waits for its child, so the requests reach the one fake model in this order.
    const { env } = await start([
      {
        tool_calls: [
          {
            name: "run_subagent",
            arguments: { description: "delegate", prompt: "Say hello to the root.", yield_time_ms: 30_000 },
          },
        ],
      },
      { tool_calls: [{ name: "send_message", arguments: { to: "root", text: "hello from the child" } }] },
      { text: "child done" },
      { tool_calls: [{ name: "wait_messages", arguments: { timeout_ms: 0 } }] },
      { text: "all done" },
    ]);
    extendedAgent(env.PENGUIN_HOME);
    const r = await penguin(
      ["run", "--model", "openai/fake-model", "-w", tempDir("ws"), "-m", "Talk to a child."],
      { env: { ...env, NO_COLOR: "1" } },
    );
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.exitCode).toBe(0);
    const stderr = String(r.stderr);
    const lines = stderr.split("\n").filter((line) => line.includes("✉"));
    expect(lines).toEqual(["  ✉ sub_1 → root: hello from the child"]);
    expect(stderr).not.toContain("\u001b[");

    const sessionId = /trace: .*\/([^/]+)_001\.jsonl/.exec(stderr)?.[1];
    expect(sessionId).toBeDefined();
    const tree = await penguin(["trace", String(sessionId), "--agents", "--data-dir", env.PENGUIN_HOME], {
      env: { NO_COLOR: "1" },
    });
    const treeLines = String(tree.stdout).trimEnd().split("\n");
    expect(treeLines[0]).toBe(`root · completed · session ${sessionId} · ✉ 0 sent, 1 received`);
    expect(treeLines[1]).toMatch(
      /^ {2}sub_1 · completed · session \S+ · ✉ 1 sent, 0 received · Say hello to the root\.$/,
    );
  });
});
