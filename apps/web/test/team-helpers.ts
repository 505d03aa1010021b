import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { Stack } from "./stack.js";

/** The repository's docs/web folder, where PENGUIN_SCREENSHOTS=1 writes the pictures of docs/web.md. */
const DOCS_WEB = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "docs", "web");

/** A small viewport screenshot for the docs, only when PENGUIN_SCREENSHOTS=1. */
export async function docScreenshot(page: Page, name: string): Promise<void> {
  if (process.env.PENGUIN_SCREENSHOTS !== "1") return;
  await mkdir(DOCS_WEB, { recursive: true });
  await page.screenshot({ path: join(DOCS_WEB, `${name}.png`) });
}

/** Logs a user in through the form, choosing `password` when the initial one must be replaced. */
export async function loginAs(
  browser: Browser,
  stack: Stack,
  user: { username: string; initial: string; password: string },
  viewport = { width: 1100, height: 800 },
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  await page.goto(stack.server.url);
  await page.getByLabel("Username").fill(user.username);
  await page.getByLabel("Password").fill(user.initial);
  await page.getByRole("button", { name: "Log in" }).click();
  await page.getByRole("heading", { name: "Choose a password" }).waitFor();
  await page.getByLabel("Current password").fill(user.initial);
  await page.getByLabel("New password", { exact: true }).fill(user.password);
  await page.getByLabel("New password again").fill(user.password);
  await page.getByRole("button", { name: "Save password" }).click();
  await page.getByRole("heading", { name: "New session" }).waitFor();
  return { context, page };
}

/** Interactive roles whose every node needs an accessible name. */
const NAMED_ROLES = new Set([
  "button",
  "link",
  "textbox",
  "searchbox",
  "combobox",
  "checkbox",
  "switch",
  "radio",
  "spinbutton",
  "slider",
  "menuitem",
  "tab",
  "progressbar",
]);

interface AxNode {
  ignored?: boolean;
  role?: { value?: string };
  name?: { value?: string };
  backendDOMNodeId?: number;
}

/** The controls of the page, from Chromium's own accessibility tree, that have no accessible name. */
export async function unnamedControls(page: Page): Promise<string[]> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { nodes } = (await cdp.send("Accessibility.getFullAXTree")) as { nodes: AxNode[] };
    const unnamed: string[] = [];
    for (const node of nodes) {
      const role = node.role?.value ?? "";
      if (node.ignored || !NAMED_ROLES.has(role)) continue;
      if ((node.name?.value ?? "").trim() !== "") continue;
      const described = node.backendDOMNodeId
        ? ((await cdp.send("DOM.describeNode", { backendNodeId: node.backendDOMNodeId })) as {
            node: { localName: string; attributes?: string[] };
          })
        : undefined;
      unnamed.push(
        `${role} <${described?.node.localName ?? "?"} ${(described?.node.attributes ?? []).join(" ")}>`,
      );
    }
    return unnamed;
  } finally {
    await cdp.detach();
  }
}

/** Whether the page scrolls sideways (wider content than the viewport). */
export function scrollsSideways(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);
}
