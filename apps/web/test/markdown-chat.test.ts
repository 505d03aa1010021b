import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
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
  toolCard,
} from "./stack.js";

const ANSWER = [
  "## What changed",
  "",
  "- the parser *skips* comments",
  "- the printer keeps `\\n` endings",
  "",
  "| file | lines |",
  "| --- | ---: |",
  "| parse.ts | 42 |",
  "",
  "```ts",
  "export const answer: number = 42;",
  "```",
  "",
  "Details in [the guide](https://example.com/guide).",
].join("\n");

// Each line tries another way to run script in the page; the UI must show it and run none of it.
const PAYLOADS = [
  "<script>window.__pwned = 'script'</script>",
  '<img src="x" onerror="window.__pwned = \'img\'">',
  "<svg onload=\"window.__pwned = 'svg'\"></svg>",
  '<iframe srcdoc="<script>parent.__pwned = 1</script>"></iframe>',
  "[click me](javascript:window.__pwned='link')",
  '<a href="#" onclick="window.__pwned = \'click\'">no handler</a>',
];
const PAYLOAD_ANSWER = `Here is what the page said:\n\n${PAYLOADS.join("\n\n")}\n\nNothing more.`;

/** Names of on* attributes on any element of the page. */
const eventHandlers = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll("*")].flatMap((element) =>
      element.getAttributeNames().filter((name) => name.toLowerCase().startsWith("on")),
    ),
  );

describe.skipIf(!HAS_CHROMIUM)(
  "the model's Markdown and file diffs in Chromium, against a real server and fake-llm",
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

    it("script payloads in an answer show as text and never run; no element gets an on* attribute", async () => {
      stack.llm.setScript({ turns: [{ chunk_size: 7, chunk_delay_ms: 15, text: PAYLOAD_ANSWER }] });
      const { context, page } = await loggedInPage(browser, stack);
      const chunks: string[] = [];
      page.on("request", (request) => chunks.push(new URL(request.url()).pathname));
      await createSessionInPage(page, stack, { title: "Payloads", mode: "allow-all" });
      await sendTask(page, "Quote the page");
      await page.getByTestId("status-line").filter({ hasText: "Task completed" }).waitFor();

      const answer = page.locator('[data-role="assistant"] [data-testid="markdown"]');
      await answer.waitFor();
      const shown = await answer.textContent();
      for (const payload of PAYLOADS.filter((p) => p.startsWith("<"))) expect(shown).toContain(payload);
      expect(shown).toContain("click me");
      // Let an image error or a frame load happen, if anything had been created.
      await page.waitForTimeout(300);
      await answer.getByText("click me").click();
      expect(await page.evaluate(() => (window as { __pwned?: unknown }).__pwned)).toBeUndefined();
      expect(await eventHandlers(page)).toEqual([]);
      expect(await answer.locator("script, img, svg, iframe").count()).toBe(0);
      // No code block in this answer: the highlighter was not fetched.
      expect(chunks.filter((path) => path.includes("highlight-code"))).toEqual([]);
      await context.close();
    });

    it("an answer with a heading, a list, a table, a fenced code block and a link shows rendered, the code highlighted, while and after it streams", async () => {
      stack.llm.setScript({ turns: [{ chunk_size: 4, chunk_delay_ms: 20, text: ANSWER }] });
      const { context, page } = await loggedInPage(browser, stack);
      await createSessionInPage(page, stack, { title: "Rendered", mode: "allow-all" });
      await sendTask(page, "What changed?");

      // Mid-stream the text is already Markdown: the heading shows before the rest has arrived.
      const streaming = page.locator(
        '[data-testid="message-text"][data-streaming="true"] [data-testid="markdown"]',
      );
      await streaming.locator("h2").waitFor();
      await page.getByTestId("status-line").filter({ hasText: "Task completed" }).waitFor();

      const answer = page.locator('[data-role="assistant"] [data-testid="markdown"]');
      expect(await answer.locator("h2").textContent()).toBe("What changed");
      expect(await answer.locator("ul > li").allTextContents()).toEqual([
        "the parser skips comments",
        "the printer keeps \\n endings",
      ]);
      expect(await answer.locator("ul em").textContent()).toBe("skips");
      expect(await answer.locator("table th").allTextContents()).toEqual(["file", "lines"]);
      expect(await answer.locator("table td").allTextContents()).toEqual(["parse.ts", "42"]);
      const code = answer.locator("pre > code.language-ts");
      expect(await code.textContent()).toBe("export const answer: number = 42;");
      await code.locator(".hljs-keyword").first().waitFor();
      expect(await code.locator(".hljs-keyword").allTextContents()).toEqual(["export", "const"]);
      const link = answer.getByRole("link", { name: "the guide" });
      expect(await link.getAttribute("href")).toBe("https://example.com/guide");
      expect(await link.getAttribute("target")).toBe("_blank");
      expect(await link.getAttribute("rel")).toBe("noopener noreferrer");
      await screenshot(page, "chat-markdown");

      // A reload renders the same answer from the history, nothing lost or doubled.
      await page.reload();
      await answer.locator("pre > code .hljs-keyword").first().waitFor();
      expect(await page.locator('[data-role="assistant"]').count()).toBe(1);
      expect(await answer.locator("table td").allTextContents()).toEqual(["parse.ts", "42"]);
      await context.close();
    });

    it("an edit_file card shows the tool's own diff, its added and removed lines marked", async () => {
      const file = join(stack.workspace, "greeting.txt");
      await writeFile(file, "hello\nold line\nbye\n");
      stack.llm.setScript({
        turns: [
          {
            tool_calls: [
              {
                id: "call_edit",
                name: "edit_file",
                arguments: {
                  file_path: file,
                  old_string: "old line",
                  new_string: "new line",
                },
              },
            ],
          },
          { text: "Changed." },
        ],
      });
      const { context, page } = await loggedInPage(browser, stack);
      await createSessionInPage(page, stack, { title: "Diffs", mode: "allow-all" });
      await sendTask(page, "Change the middle line");
      await page.getByTestId("status-line").filter({ hasText: "Task completed" }).waitFor();
      expect(await readFile(file, "utf8")).toBe("hello\nnew line\nbye\n");

      const diff = toolCard(page, "call_edit").getByTestId("call-diff");
      expect(await diff.locator("summary").textContent()).toBe("Diff +1 −1");
      expect(await diff.locator('[data-kind="remove"]').allTextContents()).toEqual(["-old line\n"]);
      expect(await diff.locator('[data-kind="add"]').allTextContents()).toEqual(["+new line\n"]);
      expect(await diff.locator('[data-kind="context"]').allTextContents()).toEqual([" hello\n", " bye\n"]);
      // Coloured: an added line's background is not a removed line's, and neither is the page's.
      const background = (kind: string) =>
        diff
          .locator(`[data-kind="${kind}"]`)
          .first()
          .evaluate((el) => getComputedStyle(el).backgroundColor);
      const [added, removed, context_] = await Promise.all([
        background("add"),
        background("remove"),
        background("context"),
      ]);
      expect(new Set([added, removed, context_]).size).toBe(3);
      await screenshot(page, "chat-diff");
      await context.close();
    });
  },
);
