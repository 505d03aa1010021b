import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  apiFetch,
  createSessionInPage,
  HAS_CHROMIUM,
  launchChromium,
  loggedInPage,
  type Stack,
  screenshot,
  sendTask,
  startStack,
  toolCard,
} from "./stack.js";

// The agent's question to the user (`ask`) in the web UI: a card with a text box in every open
// viewer of the session, answered from one of them, gone from all of them once answered.

describe.skipIf(!HAS_CHROMIUM)("the question card in Chromium, against a real server and fake-llm", () => {
  let stack: Stack;
  let browser: Browser;

  beforeAll(async () => {
    stack = await startStack();
    // The default agent gets the extended preset, which has `ask`.
    const agentDir = join(stack.dataRoot, "agents", "default");
    await mkdir(agentDir, { recursive: true });
    await writeFile(join(agentDir, "system_config.yaml"), "tools:\n  preset: extended\n");
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  it("shows the question in every viewer; an answer from one card reaches the agent and the card goes from both", async () => {
    stack.llm.setScript({
      turns: [
        {
          tool_calls: [
            { id: "call_ask", name: "ask", arguments: { question: "Which colour should the logo be?" } },
          ],
        },
        { text: "Going with teal for the logo." },
      ],
    });
    const first = await loggedInPage(browser, stack);
    const sessionId = await createSessionInPage(first.page, stack, { title: "Questions", mode: "allow-all" });
    // A second viewer of the same session, in its own browser context.
    const second = await loggedInPage(browser, stack);
    await second.page.goto(`${stack.server.url}/#/sessions/${encodeURIComponent(sessionId)}`);
    await second.page.getByRole("heading", { name: "Questions" }).waitFor();

    await sendTask(first.page, "Make a logo");
    const card = (page: typeof first.page) =>
      page.locator('[data-testid="question-card"][data-question-id="q_1"]');
    await card(first.page).waitFor();
    await card(second.page).waitFor();
    expect(await card(first.page).textContent()).toContain("Which colour should the logo be?");
    expect(await card(second.page).textContent()).toContain("Which colour should the logo be?");
    await screenshot(first.page, "web-chat-question");

    // An empty answer cannot be sent.
    expect(await card(first.page).getByRole("button", { name: "Answer" }).isDisabled()).toBe(true);
    await card(second.page).getByLabel("Answer to q_1").fill("teal");
    await card(second.page).getByRole("button", { name: "Answer" }).click();

    await first.page.getByTestId("status-line").filter({ hasText: "Task completed" }).waitFor();
    await expect.poll(() => card(first.page).count()).toBe(0);
    await expect.poll(() => card(second.page).count()).toBe(0);
    expect(await first.page.getByText("Going with teal for the logo.").count()).toBe(1);
    await toolCard(first.page, "call_ask")
      .getByText(/^Output/)
      .click();
    expect(await toolCard(first.page, "call_ask").getByTestId("call-output").textContent()).toContain(
      "Answer to q_1 from user:\nteal",
    );
    const { questions } = (await apiFetch(first.context, stack, `/api/sessions/${sessionId}/questions`)) as {
      questions: unknown[];
    };
    expect(questions).toEqual([]);
    await first.context.close();
    await second.context.close();
  });
});
