import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createSessionInPage,
  HAS_CHROMIUM,
  launchChromium,
  loggedInPage,
  type Stack,
  screenshot,
  sendTask,
  startStack,
} from "./stack.js";

// The Agents panel of the chat page in Chromium, against a real server whose session starts a
// real child (run_subagent) on fake-llm: the child shows as running while its command waits,
// then its message to the root and its completion arrive live, without a reload.

const FLAG = "release-the-child";

describe.skipIf(!HAS_CHROMIUM)("the Agents panel in Chromium, against a real server", () => {
  let stack: Stack;
  let browser: Browser;

  beforeAll(async () => {
    // Parent and child share the model's script, so its turns go out in request order: the
    // child's first request (its command waits for the flag) comes well inside the parent's
    // run_subagent window; the parent then waits for a message; the flag is written only once
    // that third request was made. Then the child sends its message, and both end with a text
    // (in either order: the same text).
    stack = await startStack([
      {
        tool_calls: [
          {
            id: "call_spawn",
            name: "run_subagent",
            arguments: {
              description: "delegate",
              prompt: "Run the tests, then report to the root.",
              yield_time_ms: 8_000,
            },
          },
        ],
      },
      {
        tool_calls: [
          {
            name: "exec_command",
            arguments: {
              description: "wait for the flag",
              cmd: `while [ ! -e ${FLAG} ]; do sleep 0.05; done`,
              yield_time_ms: 60_000,
            },
          },
        ],
      },
      { tool_calls: [{ name: "wait_messages", arguments: { timeout_ms: 60_000 } }] },
      { tool_calls: [{ name: "send_message", arguments: { to: "root", text: "all 12 tests pass" } }] },
      { text: "Done." },
      { text: "Done." },
    ]);
    // The messaging tools are in the extended toolset.
    const agentDir = join(stack.dataRoot, "agents", "default");
    await mkdir(agentDir, { recursive: true });
    await writeFile(join(agentDir, "system_config.yaml"), "tools:\n  preset: extended\n");
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  it("shows the tree with each agent's status, and the child's message and end as they happen", async () => {
    const { page } = await loggedInPage(browser, stack);
    await createSessionInPage(page, stack, { title: "Agents at work", mode: "allow-all" });
    await sendTask(page, "Delegate the tests.");

    const panel = page.getByRole("region", { name: "Agents" });
    const row = (id: string) => panel.locator(`[data-testid="agent-row"][data-agent="${id}"]`);
    await row("sub_1").waitFor();
    await expect.poll(() => row("sub_1").getAttribute("data-status"), { timeout: 20_000 }).toBe("running");
    expect(await row("root").getAttribute("data-status")).toBe("running");
    expect(await row("sub_1").textContent()).toContain("Run the tests, then report to the root.");
    await screenshot(page, "agents-panel-running");

    // The parent's wait_messages request has taken its turn: the child's next one is the message.
    await stack.llm.waitForRequests(3, { timeoutMs: 30_000 });
    await writeFile(join(stack.workspace, FLAG), "");
    const message = panel.getByTestId("agent-message");
    await expect.poll(() => message.textContent(), { timeout: 20_000 }).toContain("✉ sub_1 → root");
    expect(await message.textContent()).toContain("all 12 tests pass");
    await expect.poll(() => row("sub_1").getAttribute("data-status"), { timeout: 20_000 }).toBe("completed");
    await expect.poll(() => row("root").getAttribute("data-status"), { timeout: 20_000 }).toBe("completed");
    expect(await row("root").textContent()).toContain("✉ 0 sent · 1 received");
    expect(await row("sub_1").textContent()).toContain("✉ 1 sent · 0 received");
    // The row is indented under its launcher.
    const indent = await row("sub_1").evaluate((el) => getComputedStyle(el).paddingLeft);
    expect(Number.parseFloat(indent)).toBeGreaterThan(0);
    // Choosing an agent shows only its messages; the root took part in this one too.
    await row("sub_1").getByRole("button", { name: "sub_1" }).click();
    await panel.getByText("Messages of sub_1").waitFor();
    expect(await message.count()).toBe(1);
    await panel.getByRole("button", { name: "show all" }).click();
    await panel.getByText("Messages of sub_1").waitFor({ state: "detached" });
    await screenshot(page, "agents-panel-done");
  });
});
