import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createSessionInPage,
  HAS_CHROMIUM,
  launchChromium,
  loggedInPage,
  type Stack,
  startStack,
} from "./stack.js";

/** A request with the page's session cookie (as another tab or a script of the user would send it). */
async function asThePage(
  context: BrowserContext,
  stack: Stack,
  method: string,
  path: string,
): Promise<number> {
  const cookie = (await context.cookies(stack.server.url)).find((c) => c.name === "penguin_session");
  if (!cookie) throw new Error("the page is not logged in");
  const response = await fetch(new URL(path, stack.server.url), {
    method,
    headers: { cookie: `penguin_session=${cookie.value}`, origin: stack.server.url },
  });
  return response.status;
}

/** Waits until the chat page's stream is live (its status banner is gone). */
async function live(page: Page): Promise<void> {
  await page.getByTestId("stream-status").waitFor({ state: "detached" });
}

describe.skipIf(!HAS_CHROMIUM)("live updates of the chat page in Chromium, against a real server", () => {
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

  it("a mode switched in one tab shows in the other tab of the same session", async () => {
    const { context, page } = await loggedInPage(browser, stack);
    const sessionId = await createSessionInPage(page, stack, { title: "Two tabs", mode: "always-ask" });
    const other = await context.newPage();
    await other.goto(`${stack.server.url}/#/sessions/${encodeURIComponent(sessionId)}`);
    await other.getByRole("heading", { name: "Two tabs" }).waitFor();
    await live(other);
    expect(await other.getByRole("radio", { name: "always-ask" }).isChecked()).toBe(true);

    await page.getByRole("radio", { name: "read-only" }).click();
    await expect.poll(() => page.getByRole("radio", { name: "read-only" }).isChecked()).toBe(true);
    await expect.poll(() => other.getByRole("radio", { name: "read-only" }).isChecked()).toBe(true);
    // And back, from the other tab.
    await other.getByRole("radio", { name: "deny-all" }).click();
    await expect.poll(() => page.getByRole("radio", { name: "deny-all" }).isChecked()).toBe(true);
    await context.close();
  });

  it("logged out elsewhere: when the stream drops, the page shows the login form instead of reconnecting", async () => {
    const { context, page } = await loggedInPage(browser, stack);
    const sessionId = await createSessionInPage(page, stack, { title: "Logged out", mode: "allow-all" });
    await live(page);
    // The page's cookie is ended on the server (a logout from another tab)…
    expect(await asThePage(context, stack, "POST", "/api/auth/logout")).toBe(204);
    // …and the open stream drops (as a proxy or a restart would drop it): the browser's own
    // reconnect is refused with 401.
    stack.server.hub.closeChannel(`session:${sessionId}`);
    await page.getByRole("button", { name: "Log in" }).waitFor();
    await context.close();
  });

  it("a deleted session: the page says so and stops reconnecting", async () => {
    const { context, page } = await loggedInPage(browser, stack);
    const sessionId = await createSessionInPage(page, stack, { title: "Deleted", mode: "allow-all" });
    await live(page);
    const streamRequests: string[] = [];
    page.on("request", (request) => {
      if (request.url().endsWith("/stream")) streamRequests.push(request.url());
    });
    expect(await asThePage(context, stack, "DELETE", `/api/sessions/${encodeURIComponent(sessionId)}`)).toBe(
      204,
    );
    const banner = page.getByTestId("stream-status");
    await banner.filter({ hasText: "this session no longer exists" }).waitFor();
    expect(await banner.getAttribute("role")).toBe("alert");
    const opened = streamRequests.length;
    // The old client opened a new stream every 2 s forever; now none follows the verdict.
    await page.waitForTimeout(3_000);
    expect(streamRequests).toHaveLength(opened);
    expect(await banner.textContent()).toContain("this session no longer exists");
    await context.close();
  });
});
