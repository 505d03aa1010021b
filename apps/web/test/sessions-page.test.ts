import { readFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  apiFetch,
  createSessionInPage,
  HAS_CHROMIUM,
  launchChromium,
  loggedInPage,
  MODEL,
  type Stack,
  screenshot,
  sendTask,
  startStack,
} from "./stack.js";

// The sessions page in Chromium against a real server: a session created through the folder
// picker, its title taken from the first message, search, rename, delete after a confirmation,
// export and import; every control named in the accessibility tree.

/** Controls in an ARIA snapshot that have no accessible name: none may exist. */
function unnamedControls(snapshot: string): string[] {
  return snapshot
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => /^- (button|textbox|searchbox|combobox|link|checkbox)\b/.test(line))
    .filter((line) => !/^- \w+ "[^"]+"/.test(line));
}

const rows = (page: Page) => page.getByTestId("session-row");

async function expectNamed(region: Locator): Promise<void> {
  expect(unnamedControls(await region.ariaSnapshot())).toEqual([]);
}

describe.skipIf(!HAS_CHROMIUM)("the sessions page in Chromium, against a real server", () => {
  let stack: Stack;
  let browser: Browser;

  beforeAll(async () => {
    stack = await startStack([{ text: "Here is the plan." }, { text: "Docs tidied." }]);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  it("creates a session through the folder picker with the defaults filled, and titles it from the first message", async () => {
    const { page } = await loggedInPage(browser, stack);
    const root = dirname(stack.workspace);
    const form = page.getByRole("form", { name: "New session" });
    await expect.poll(() => page.getByTestId("workspace-roots").textContent()).toContain(root);
    // The defaults: the first root, the project's default model, the default agent.
    await expect.poll(() => form.getByLabel("Workspace folder").inputValue()).toBe(root);
    await expect.poll(() => form.getByLabel("Model").inputValue()).toBe(MODEL);
    expect(await form.getByLabel("Agent", { exact: true }).inputValue()).toBe("default");

    await form.getByRole("button", { name: "Browse folders" }).click();
    const picker = page.getByRole("region", { name: "Choose a folder" });
    await picker.getByRole("button", { name: "Open project" }).click();
    await expect.poll(() => picker.getByTestId("picker-path").textContent()).toBe(stack.workspace);
    await picker.getByRole("button", { name: "Up one folder" }).waitFor();
    await expectNamed(form);
    await screenshot(page, "sessions-folder-picker");
    await picker.getByRole("button", { name: "Choose this folder" }).click();
    expect(await form.getByLabel("Workspace folder").inputValue()).toBe(stack.workspace);
    expect(await picker.count()).toBe(0);

    await form.getByRole("button", { name: "Create session" }).click();
    await page.waitForURL(/#\/sessions\//);
    await sendTask(page, "Plan the release\nwith every step");
    await page.getByText("Here is the plan.").waitFor({ timeout: 30_000 });

    await page.goto(`${stack.server.url}/#/`);
    const row = rows(page).filter({ hasText: "Plan the release" });
    await row.getByRole("link", { name: "Plan the release", exact: true }).waitFor();
    expect(await row.textContent()).toContain(MODEL);
    // Relative times, the exact time on hover.
    const created = row.locator("time").first();
    expect(await created.textContent()).toBe("just now");
    expect(await created.getAttribute("title")).toMatch(/\d/);
  });

  it("searches, renames inline, deletes after a confirmation, and round-trips an export through import", async () => {
    const { page } = await loggedInPage(browser, stack);
    await createSessionInPage(page, stack, { title: "Other work", mode: "allow-all" });
    await page.goto(`${stack.server.url}/#/`);
    await expect.poll(() => rows(page).count()).toBe(2);
    const list = page.getByRole("region", { name: "Sessions" });
    await expectNamed(list);

    const search = page.getByRole("searchbox", { name: "Search sessions" });
    await search.fill("release");
    await expect.poll(() => rows(page).count()).toBe(1);
    await search.fill("project");
    await expect.poll(() => rows(page).count()).toBe(2);
    await search.fill("nothing like this");
    await page.getByText("No session matches").waitFor();
    await search.fill("");

    // Rename with the keyboard: the field takes the focus, Enter saves.
    await page.getByRole("button", { name: "Rename Plan the release" }).click();
    const field = page.getByRole("textbox", { name: "New title for Plan the release" });
    await expect.poll(() => field.evaluate((el) => el === document.activeElement)).toBe(true);
    await field.fill("Release plan");
    await field.press("Enter");
    await page.getByRole("link", { name: "Release plan", exact: true }).waitFor();
    // Escape leaves a rename without a change.
    await page.getByRole("button", { name: "Rename Release plan" }).click();
    await page.getByRole("textbox", { name: "New title for Release plan" }).press("Escape");
    await page.getByRole("link", { name: "Release plan", exact: true }).waitFor();

    // Delete: Cancel keeps the session, Delete removes it.
    await page.getByRole("button", { name: "Delete Other work" }).click();
    const dialog = page.getByRole("dialog", { name: "Delete session?" });
    await dialog.waitFor();
    await expectNamed(dialog);
    await screenshot(page, "sessions-delete-dialog");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    expect(await dialog.count()).toBe(0);
    expect(await rows(page).count()).toBe(2);
    await page.getByRole("button", { name: "Delete Other work" }).click();
    await page
      .getByRole("dialog", { name: "Delete session?" })
      .getByRole("button", { name: "Delete" })
      .click();
    await expect.poll(() => rows(page).count()).toBe(1);
    expect(await page.getByRole("link", { name: "Other work", exact: true }).count()).toBe(0);

    // Export downloads the trace; importing it makes a second session (a new id: the old one is taken).
    const download = page.waitForEvent("download");
    await page.getByRole("link", { name: "Export Release plan" }).click();
    const file = await (await download).path();
    const text = await readFile(file, "utf8");
    const meta = JSON.parse(text.split("\n")[0]);
    expect(meta).toMatchObject({ type: "session_meta" });
    await page.getByLabel("Import a session export").setInputFiles(file);
    await page.getByRole("status").filter({ hasText: "Imported Plan the release as" }).waitFor();
    await expect.poll(() => rows(page).count()).toBe(2);
    await page.getByRole("link", { name: "Plan the release", exact: true }).click();
    await page.getByText("Here is the plan.").waitFor();
    await screenshot(page, "sessions-imported-chat");
  });

  it("follows sessions created, run and renamed elsewhere without a reload", async () => {
    const { context, page } = await loggedInPage(browser, stack);
    // Counted once the list has loaded: earlier tests left sessions, and a count taken while the
    // page still says "Loading…" is 0.
    const listed = (await apiFetch(context, stack, "/api/sessions")) as { sessions: unknown[] };
    const before = listed.sessions.length;
    await expect.poll(() => rows(page).count()).toBe(before);
    const created = (await apiFetch(context, stack, "/api/sessions", {
      json: { workspace: stack.workspace },
    })) as {
      session: { id: string };
    };
    const id = created.session.id;
    const row = page.locator(`[data-testid="session-row"][data-session-id="${id}"]`);
    await row.waitFor();
    expect(await rows(page).count()).toBe(before + 1);
    await apiFetch(context, stack, `/api/sessions/${id}/tasks`, {
      json: { input: "Tidy the docs\nand the README" },
    });
    await row.getByRole("link", { name: "Tidy the docs", exact: true }).waitFor();
    await expect.poll(() => row.locator(".badge").textContent()).toBe("idle");
    await apiFetch(context, stack, `/api/sessions/${id}`, { method: "PATCH", json: { title: "Docs tidy" } });
    await row.getByRole("link", { name: "Docs tidy", exact: true }).waitFor();
  });

  it("shows the server's refusal of a file that is not an export", async () => {
    const { page } = await loggedInPage(browser, stack);
    await page.getByLabel("Import a session export").setInputFiles({
      name: "notes.jsonl",
      mimeType: "application/x-ndjson",
      buffer: Buffer.from("this is not a trace\n"),
    });
    const alert = page.getByRole("alert");
    await alert.waitFor();
    expect(await alert.textContent()).toContain("not a valid record");
  });
});
