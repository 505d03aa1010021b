import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  apiFetch,
  HAS_CHROMIUM,
  launchChromium,
  loggedInPage,
  type Stack,
  screenshot,
  startStack,
} from "./stack.js";

interface BuiltinTool {
  name: string;
  description: string;
  timeoutMs?: number;
}

async function defaultAgentFile(context: Parameters<typeof apiFetch>[0], stack: Stack) {
  const { yaml } = (await apiFetch(context, stack, "/api/agents/default/config")) as { yaml: string };
  return { yaml, tools: (parse(yaml) as { tools: { builtin: BuiltinTool[] } }).tools.builtin };
}

describe.skipIf(!HAS_CHROMIUM)("the agent settings page", () => {
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

  it("edits a tool row's description, the change persists in system_config.yaml, and it offers no way to add a row", async () => {
    const { context, page } = await loggedInPage(browser, stack);
    const before = await defaultAgentFile(context, stack);
    await page.getByRole("link", { name: "Agents" }).click();
    await page.getByRole("link", { name: "default" }).click();

    const rows = page.getByTestId("tool-rows").locator("tbody tr");
    await expect.poll(() => rows.count()).toBe(before.tools.length);
    expect(
      await page.locator("tbody tr").evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-tool"))),
    ).toEqual(before.tools.map((tool) => tool.name));
    // Rows are edited, never added: no control on the page offers that.
    expect(await page.getByRole("button", { name: /add|new/i }).count()).toBe(0);
    expect(await page.getByRole("link", { name: /add|new/i }).count()).toBe(0);

    const edited = "Run a shell command in the workspace (edited in the browser).";
    await page.getByLabel("exec_command description").fill(edited);
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByRole("status").filter({ hasText: "Saved" }).waitFor();
    await screenshot(page, "web-agent-settings");

    const after = await defaultAgentFile(context, stack);
    expect(after.tools.map((tool) => tool.name)).toEqual(before.tools.map((tool) => tool.name));
    expect(after.tools.find((tool) => tool.name === "exec_command")?.description).toBe(edited);
    // Only that field changed: the rest of the file, comments included, is as it was.
    const otherLines = (yaml: string) => yaml.split("\n").filter((line) => !line.includes("description: "));
    expect(otherLines(after.yaml)).toEqual(otherLines(before.yaml));

    await page.reload();
    await expect.poll(() => page.getByLabel("exec_command description").inputValue()).toBe(edited);
    await context.close();
  });

  it("shows the server's validation errors and writes nothing when a row is invalid", async () => {
    const { context, page } = await loggedInPage(browser, stack);
    const before = await defaultAgentFile(context, stack);
    await page.goto(`${stack.server.url}/#/agents/default`);
    await page.getByLabel("read_file timeoutMs").fill("1.5");
    await page.getByRole("button", { name: "Save" }).click();

    const errors = page.getByTestId("config-errors");
    await errors.waitFor();
    expect(await errors.textContent()).toMatch(/timeoutMs/);
    expect((await defaultAgentFile(context, stack)).yaml).toBe(before.yaml);
    await context.close();
  });
});
