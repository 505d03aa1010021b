import { existsSync } from "node:fs";
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
} from "./stack.js";

// The "Files changed" blocks of the chat page in Chromium, against a real server whose sessions'
// file tools change real files: Revert previews, then restores them; a file changed since the
// task is a conflict that "Revert anyway" overwrites.

const ORIGINAL = "one\ntwo\nthree\n";

const SCRIPT = [
  // The first session: read a.txt, edit it and add notes.md.
  { tool_calls: [{ id: "call_read", name: "read_file", arguments: { file_path: "a.txt" } }] },
  {
    tool_calls: [
      {
        id: "call_edit",
        name: "edit_file",
        arguments: { file_path: "a.txt", old_string: "two", new_string: "TWO" },
      },
      { id: "call_notes", name: "write_file", arguments: { file_path: "notes.md", content: "# Notes\n" } },
    ],
  },
  { text: "Edited a.txt." },
  // The second session: write b.txt.
  { tool_calls: [{ id: "call_b", name: "write_file", arguments: { file_path: "b.txt", content: "b\n" } }] },
  { text: "Wrote b.txt." },
];

const block = (page: Page, changeSet: string) =>
  page.locator(`[data-testid="changes"][data-change-set="${changeSet}"]`);

describe.skipIf(!HAS_CHROMIUM)("Files changed and Revert in Chromium, against a real server", () => {
  let stack: Stack;
  let browser: Browser;

  beforeAll(async () => {
    stack = await startStack(SCRIPT);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  it("shows a task's changed files; Revert previews, then restores them; the revert can be reverted", async () => {
    const a = join(stack.workspace, "a.txt");
    const notes = join(stack.workspace, "notes.md");
    await writeFile(a, ORIGINAL);
    const { page } = await loggedInPage(browser, stack);
    await createSessionInPage(page, stack, { title: "Edits", mode: "allow-all" });
    await sendTask(page, "Edit a.txt.");
    await page.getByText("Edited a.txt.").waitFor({ timeout: 30_000 });

    const task = page.getByRole("region", { name: "Files changed by task 1" });
    await task.waitFor();
    const files = task.getByTestId("changed-file");
    expect(await files.count()).toBe(2);
    expect(await task.locator('[data-testid="changed-file"][data-status="changed"]').textContent()).toContain(
      "a.txt",
    );
    expect(await task.locator('[data-testid="changed-file"][data-status="added"]').textContent()).toContain(
      "+1/−0",
    );

    await task.getByRole("button", { name: "Revert task 1", exact: true }).click();
    const preview = task.getByTestId("revert-preview");
    await preview.waitFor();
    expect(await preview.textContent()).toContain("restores 2 paths");
    // The preview changed nothing.
    expect(await readFile(a, "utf8")).toBe("one\nTWO\nthree\n");
    await screenshot(page, "changes-revert-preview");

    await task.getByRole("button", { name: "Revert task 1 now", exact: true }).click();
    await task.getByRole("status").filter({ hasText: "Reverted task 1" }).waitFor();
    expect(await readFile(a, "utf8")).toBe(ORIGINAL);
    expect(existsSync(notes)).toBe(false);
    // The stream brings the revert: the task shows it, and the revert has its own block.
    await task.getByTestId("changes-reverted").filter({ hasText: "reverted by undo-1" }).waitFor();
    const undo = block(page, "undo-1");
    await undo.waitFor();
    expect(await undo.textContent()).toContain("revert undo-1 (of task 1)");
    await screenshot(page, "changes-reverted");

    // The revert is reverted the same way: the task's changes are back.
    await undo.getByRole("button", { name: "Revert revert undo-1", exact: true }).click();
    await undo.getByRole("button", { name: "Revert revert undo-1 now", exact: true }).click();
    await undo.getByRole("status").filter({ hasText: "Reverted revert undo-1" }).waitFor();
    expect(await readFile(a, "utf8")).toBe("one\nTWO\nthree\n");
    expect(await readFile(notes, "utf8")).toBe("# Notes\n");
    await block(page, "undo-2").waitFor();
    await expect.poll(() => task.getByTestId("changes-reverted").count()).toBe(0);
    // After a reload, the history shows the same.
    await page.reload();
    await block(page, "undo-1").getByTestId("changes-reverted").filter({ hasText: "undo-2" }).waitFor();
    expect(await block(page, "1").getByTestId("changes-reverted").count()).toBe(0);
  });

  it("lists a file changed since the task as a conflict, and Revert anyway overwrites it", async () => {
    const b = join(stack.workspace, "b.txt");
    const { page } = await loggedInPage(browser, stack);
    await createSessionInPage(page, stack, { title: "Conflict", mode: "allow-all" });
    await sendTask(page, "Write b.txt.");
    await page.getByText("Wrote b.txt.").waitFor({ timeout: 30_000 });
    await writeFile(b, "b\nchanged by hand\n");

    const task = page.getByRole("region", { name: "Files changed by task 1" });
    await task.getByRole("button", { name: "Revert task 1", exact: true }).click();
    const preview = task.getByTestId("revert-preview");
    await preview.waitFor();
    const conflicts = preview.getByTestId("revert-conflicts");
    expect(await conflicts.textContent()).toContain("b.txt");
    expect(await conflicts.textContent()).toContain("changed since");
    // Nothing can be restored without overwriting: only "Revert anyway" reverts.
    expect(await task.getByRole("button", { name: "Revert task 1 now", exact: true }).count()).toBe(0);
    expect(await readFile(b, "utf8")).toBe("b\nchanged by hand\n");
    await screenshot(page, "changes-conflict");

    await task.getByRole("button", { name: "Revert anyway", exact: true }).click();
    await task.getByRole("status").filter({ hasText: "Reverted task 1" }).waitFor();
    expect(existsSync(b)).toBe(false);
    await task.getByTestId("changes-reverted").waitFor();
  });
});
