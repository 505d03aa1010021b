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

/** The text of a recorded OpenAI Chat request's messages, joined. */
function chatText(body: unknown): string {
  const messages = (body as { messages?: { content?: unknown }[] }).messages ?? [];
  return messages
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)))
    .join("\n");
}

describe.skipIf(!HAS_CHROMIUM)(
  "compaction and goal mode in the web UI, in Chromium against a real server",
  () => {
    let stack: Stack;
    let browser: Browser;

    beforeAll(async () => {
      stack = await startStack();
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
      await stack?.close();
    });

    it("Compact is disabled while a task runs; clicking it shows the compaction in the timeline, also after a reload", async () => {
      stack.llm.setScript({
        turns: [
          {
            text: "A reply that streams slowly enough to see the task run.",
            chunk_size: 2,
            chunk_delay_ms: 40,
          },
          { text: "[summary]The user said hello; we answered.[/summary]", chunk_size: 2, chunk_delay_ms: 40 },
        ],
      });
      const { context, page } = await loggedInPage(browser, stack);
      await createSessionInPage(page, stack, { title: "Compaction", mode: "allow-all" });
      const compact = page.getByRole("button", { name: "Compact" });
      const state = page.getByTestId("task-state");
      await sendTask(page, "Hello");
      await expect.poll(() => state.textContent()).toContain("running");
      expect(await compact.isDisabled()).toBe(true);
      await page.getByText("Task completed").waitFor();
      await expect.poll(() => state.textContent()).toContain("idle");
      expect(await compact.isDisabled()).toBe(false);

      await compact.click();
      const item = page.getByTestId("compaction");
      await expect.poll(() => state.textContent()).toContain("compacting");
      expect(await compact.isDisabled()).toBe(true);
      await expect.poll(() => item.getAttribute("data-status")).toBe("completed");
      expect(await item.textContent()).toContain(
        "Context compacted (on request): the conversation continues from a summary",
      );
      await item.getByText("Summary", { exact: true }).click();
      expect(await item.locator(".message-body").textContent()).toBe("The user said hello; we answered.");
      // The new context's messages (the summary, the kept user message) are not shown again as chat.
      expect(await page.getByTestId("message-text").filter({ hasText: "Hello" }).count()).toBe(1);
      await expect.poll(() => state.textContent()).toContain("idle");
      await screenshot(page, "compaction");

      // The history comes from both trace files: the compaction is still there after a reload.
      await page.reload();
      await page.getByTestId("compaction").waitFor();
      expect(await page.getByTestId("compaction").getAttribute("data-status")).toBe("completed");
      expect(await page.getByTestId("message-text").filter({ hasText: "Hello" }).count()).toBe(1);
      await context.close();
    });

    it("the Goal switch starts the task in goal mode (with its budget) and the timeline shows how the goal ended", async () => {
      const usage = { input_tokens: 100, output_tokens: 10 };
      stack.llm.setScript({
        turns: [
          { text: "Round one: the lexer is done.", usage },
          { text: "Wrapping up: the parser is left.", usage },
        ],
      });
      const before = stack.llm.requests.length;
      const { context, page } = await loggedInPage(browser, stack);
      await createSessionInPage(page, stack, { title: "Goal", mode: "allow-all" });
      await page.getByRole("switch", { name: "Goal" }).check();
      const budget = page.getByLabel("Token budget");
      await budget.fill("0");
      await expect.poll(() => page.getByRole("alert").textContent()).toContain("a whole number above 0");
      expect(await page.getByRole("button", { name: "Start goal" }).isDisabled()).toBe(true);
      await budget.fill("100");
      await page.getByPlaceholder(/Describe the goal/).fill("Rewrite the parser.");
      await page.getByRole("button", { name: "Start goal" }).click();

      const finished = page.getByTestId("goal-finished");
      await finished.waitFor();
      expect(await finished.getAttribute("data-outcome")).toBe("budget_limited");
      expect(await finished.textContent()).toBe(
        "Goal stopped: its token budget is spent: the goal's token budget of 100 is spent (110 used) (2 rounds, 220 tokens)",
      );
      const requests = stack.llm.requests.slice(before).filter((r) => r.protocol === "openai-chat");
      expect(requests).toHaveLength(2);
      expect(chatText(requests[0]?.body)).toMatch(/\[goal\][\s\S]*Rewrite the parser\./);
      await screenshot(page, "goal-finished");
      await context.close();
    });
  },
);
