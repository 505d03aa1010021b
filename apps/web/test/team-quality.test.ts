import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createSessionInPage,
  execCall,
  HAS_CHROMIUM,
  launchChromium,
  loggedInPage,
  type Stack,
  startStack,
  toolCard,
} from "./stack.js";
import { docScreenshot, scrollsSideways, unnamedControls } from "./team-helpers.js";

/** The main pages, each with what shows once it has loaded (the chat: its first tool call). */
const mainPages = (sessionId: string) => [
  { hash: "#/", ready: 'main [data-testid="session-row"]' },
  { hash: `#/sessions/${sessionId}`, ready: '[data-testid="tool-call"]' },
  { hash: "#/users", ready: '[data-testid="user-row"]' },
  { hash: "#/tokens", ready: 'form[aria-label="New API token"]' },
  { hash: "#/usage", ready: '[data-testid="usage-total"]' },
  { hash: "#/account", ready: 'form[aria-label="Change your password"]' },
  { hash: "#/agents", ready: "main a[href^='#/agents/']" },
];

const focusedCard = (page: Page) =>
  page.evaluate(() => document.activeElement?.getAttribute("data-tool-call-id") ?? null);

describe.skipIf(!HAS_CHROMIUM)("the chat's usage, keys, phone width and accessible names in Chromium", () => {
  let stack: Stack;
  let browser: Browser;
  let sessionId: string;

  beforeAll(async () => {
    stack = await startStack();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  it("Ctrl+Enter sends; each task ends with its tokens and cost, the header sums the session and fills the context bar; j/k move between tool calls", async () => {
    stack.llm.setScript({
      turns: [
        {
          tool_calls: [
            execCall("call_one", "Print one", "echo one"),
            execCall("call_two", "Print two", "echo two"),
          ],
          usage: { input_tokens: 20_000, output_tokens: 1_000 },
        },
        { text: "Both ran.", usage: { input_tokens: 30_000, output_tokens: 2_000 } },
        { text: "Second task done.", usage: { input_tokens: 40_000, output_tokens: 500 } },
      ],
    });
    const { context, page } = await loggedInPage(browser, stack);
    sessionId = await createSessionInPage(page, stack, { title: "Usage", mode: "allow-all" });
    const composer = page.getByPlaceholder(/Ask for something/);
    await composer.fill("Run two commands");
    await composer.press("Control+Enter");
    const firstEnd = page.getByTestId("status-line").filter({ hasText: "Task completed" });
    await firstEnd.waitFor();

    // 53,000 tokens over two requests; $2 and $10 per million in and out: 50,000 × 2 + 3,000 × 10 = $0.13.
    await expect
      .poll(() => firstEnd.getByTestId("task-usage").textContent())
      .toContain("53,000 tokens · $0.1300");
    const header = page.getByTestId("session-usage");
    expect(await header.textContent()).toContain("Session: 53,000 tokens · $0.1300");
    const bar = page.getByRole("progressbar", { name: "Context window" });
    expect(await bar.getAttribute("aria-valuenow")).toBe("32000");
    expect(await bar.getAttribute("aria-valuemax")).toBe("100000");
    expect(await header.textContent()).toContain("(32%)");

    // A second task: its own line counts only its request, the header the whole session.
    await composer.fill("Once more");
    await composer.press("Control+Enter");
    await expect.poll(() => page.getByTestId("task-usage").count()).toBe(2);
    expect(await page.getByTestId("task-usage").nth(1).textContent()).toContain("40,500 tokens");
    await expect.poll(() => header.textContent()).toContain("Session: 93,500 tokens");
    expect(await bar.getAttribute("aria-valuenow")).toBe("40500");

    // j and k walk the tool calls; typing j in the composer stays a letter.
    await page.locator("h1").click();
    await page.keyboard.press("j");
    expect(await focusedCard(page)).toBe("call_one");
    await page.keyboard.press("j");
    expect(await focusedCard(page)).toBe("call_two");
    const outline = await toolCard(page, "call_two").evaluate((card) => getComputedStyle(card).outlineStyle);
    expect(outline).toBe("solid");
    await page.keyboard.press("k");
    expect(await focusedCard(page)).toBe("call_one");
    await composer.focus();
    await page.keyboard.press("j");
    expect(await composer.inputValue()).toBe("j");
    await composer.fill("");
    await docScreenshot(page, "chat");
    await context.close();
  });

  it("Esc aborts the running task", async () => {
    stack.llm.setScript({
      turns: [{ tool_calls: [execCall("call_sleep", "Wait a long time", "sleep 60")] }, { text: "never" }],
    });
    const { context, page } = await loggedInPage(browser, stack);
    await page.goto(`${stack.server.url}/#/sessions/${sessionId}`);
    const composer = page.getByPlaceholder(/Ask for something/);
    await composer.fill("Sleep");
    await composer.press("Control+Enter");
    await toolCard(page, "call_sleep").waitFor();
    await expect.poll(() => page.getByTestId("task-state").textContent()).toContain("running");
    await page.keyboard.press("Escape");
    await page.getByTestId("status-line").filter({ hasText: "Task aborted" }).waitFor({ timeout: 30_000 });
    await expect.poll(() => page.getByTestId("task-state").textContent()).toContain("idle");
    await context.close();
  });

  it("the usage page sums per user and per model over the days chosen", async () => {
    const { context, page } = await loggedInPage(browser, stack);
    await page.getByRole("navigation", { name: "Pages" }).getByRole("link", { name: "Usage" }).click();
    await page.getByRole("heading", { name: "Usage", level: 1 }).waitFor();
    const total = page.getByTestId("usage-total");
    await expect
      .poll(() => total.textContent())
      .toMatch(/Total: [\d,]+ tokens in [4-9] requests · \$0\.\d{4}/);
    const models = page.getByRole("region", { name: "Per model" });
    expect(await models.getByRole("row", { name: /fake\/fake-model/ }).count()).toBe(1);
    const users = page.getByRole("region", { name: "Per user" });
    expect(await users.getByRole("row", { name: /admin/ }).count()).toBe(1);
    expect(await page.getByLabel("Every user").isChecked()).toBe(true);
    await docScreenshot(page, "usage");

    // Days before any request: nothing.
    await page.getByLabel("From").fill("2020-01-01");
    await page.getByLabel("To").fill("2020-01-31");
    await page.getByRole("button", { name: "Show" }).click();
    await expect.poll(() => total.textContent()).toContain("Total: 0 tokens in 0 requests · cost unknown");
    expect(await models.textContent()).toContain("No model requests");
    await context.close();
  });

  it("every button, link and field of the main pages has an accessible name", async () => {
    const { context, page } = await loggedInPage(browser, stack);
    for (const { hash, ready } of mainPages(sessionId)) {
      await page.goto(`${stack.server.url}/${hash}`);
      await page.locator(ready).first().waitFor();
      expect(await unnamedControls(page), hash).toEqual([]);
    }
    // The walk does find a control without a name.
    await page.evaluate(() => document.querySelector("main")?.append(document.createElement("button")));
    expect(await unnamedControls(page)).toEqual([expect.stringMatching(/^button <button/)]);
    // A fresh page for the picture: the button added above is not the app's.
    await page.goto(`${stack.server.url}/#/`);
    await page.reload();
    await page.getByRole("heading", { name: "New session" }).waitFor();
    await docScreenshot(page, "sessions");
    await context.close();
  });

  it("at phone width (390 px) the sessions, chat, team and agents pages do not scroll sideways", async () => {
    const { context, page } = await loggedInPage(browser, stack);
    await page.setViewportSize({ width: 390, height: 844 });
    for (const { hash, ready } of mainPages(sessionId)) {
      await page.goto(`${stack.server.url}/${hash}`);
      await page.locator(ready).first().waitFor();
      expect(await scrollsSideways(page), hash).toBe(false);
    }
    // The check does see content wider than the screen.
    await page.evaluate(() => {
      const wide = document.createElement("div");
      wide.style.width = "1000px";
      wide.style.height = "1px";
      document.querySelector("main")?.append(wide);
    });
    expect(await scrollsSideways(page)).toBe(true);
    await context.close();
  });

  it("follows the system's dark mode", async () => {
    const backgroundOf = async (colorScheme: "light" | "dark") => {
      const { context, page } = await loggedInPage(browser, stack);
      await page.emulateMedia({ colorScheme });
      await page.goto(`${stack.server.url}/#/sessions/${sessionId}`);
      await page.locator('[data-testid="tool-call"]').first().waitFor();
      const colors = await page.evaluate(() => {
        const root = getComputedStyle(document.documentElement);
        const card = getComputedStyle(document.querySelector(".card") as Element);
        return { page: root.backgroundColor, text: root.color, card: card.backgroundColor };
      });
      if (colorScheme === "dark") await docScreenshot(page, "chat-dark");
      await context.close();
      return colors;
    };
    const brightness = (color: string) => {
      const [r, g, b] = (color.match(/\d+/g) ?? []).map(Number);
      return (r + g + b) / 3;
    };
    const light = await backgroundOf("light");
    const dark = await backgroundOf("dark");
    expect(brightness(light.page)).toBeGreaterThan(200);
    expect(brightness(dark.page)).toBeLessThan(40);
    expect(brightness(dark.card)).toBeLessThan(60);
    expect(brightness(dark.text)).toBeGreaterThan(200);
  });
});
