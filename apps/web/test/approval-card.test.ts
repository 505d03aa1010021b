import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  apiFetch,
  approvalCard,
  createSessionInPage,
  execCall,
  HAS_CHROMIUM,
  launchChromium,
  loggedInPage,
  type Stack,
  sendTask,
  startStack,
  toolCard,
} from "./stack.js";

// The approval card offers what the terminal offers, and shows a call as what it does: a command
// as a code line, an edit as a diff, a write as the file's content, never the raw JSON.

interface AuditEntry {
  toolCallId: string;
  decision: string;
  source?: { kind: string };
}

describe.skipIf(!HAS_CHROMIUM)("approval cards in Chromium", () => {
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

  it("a command prefix allowed for the session, an edit shown as a diff, a write as its content, a denial with a reason", async () => {
    const edit = {
      id: "call_edit",
      name: "edit_file",
      arguments: { file_path: "notes.txt", old_string: "old line", new_string: "new line" },
    };
    const write = {
      id: "call_write",
      name: "write_file",
      arguments: { file_path: "fresh.txt", content: "<b>bold?</b> written as text" },
    };
    stack.llm.setScript({
      turns: [
        { tool_calls: [execCall("call_one", "Say one", "echo one")] },
        { tool_calls: [execCall("call_two", "Say two", "echo two")] },
        { tool_calls: [edit] },
        { tool_calls: [write] },
        { text: "Finished." },
      ],
    });
    const { context, page } = await loggedInPage(browser, stack);
    const sessionId = await createSessionInPage(page, stack, {
      title: "Approval choices",
      mode: "always-ask",
    });
    await sendTask(page, "Work");

    const first = approvalCard(page, "call_one");
    await first.waitFor();
    expect(await first.getByTestId("approval-command").textContent()).toBe("$ echo one");
    expect(await first.textContent()).not.toContain('"cmd"');
    const prefix = first.getByRole("textbox", { name: "Commands starting with" });
    // The suggestion is the program and its subcommand-like word; the person widens it to `echo`.
    expect(await prefix.inputValue()).toBe("echo one");
    await prefix.fill("echo");
    await first.getByRole("button", { name: "Allow for this session" }).click();

    // `echo two` runs under the rule; the edit is asked about next, shown as a diff.
    const editCard = approvalCard(page, "call_edit");
    await editCard.waitFor();
    expect(await editCard.locator('[data-kind="remove"]').textContent()).toContain("-old line");
    expect(await editCard.locator('[data-kind="add"]').textContent()).toContain("+new line");
    await editCard.getByRole("textbox", { name: /Reason/ }).fill("Keep the old line.");
    await editCard.getByRole("button", { name: "Deny" }).click();

    const writeCard = approvalCard(page, "call_write");
    await writeCard.waitFor();
    // What the model wrote is text on the page, not markup.
    expect(await writeCard.getByTestId("approval-content").textContent()).toBe(
      "<b>bold?</b> written as text",
    );
    expect(await writeCard.locator("b").count()).toBe(0);
    await writeCard.getByRole("button", { name: "Allow write_file for this session" }).click();
    await page.getByTestId("status-line").filter({ hasText: "Task completed" }).waitFor();

    expect(await toolCard(page, "call_two").getAttribute("data-status")).toBe("done");
    expect(JSON.stringify(stack.llm.requests.at(-1))).toContain("Keep the old line.");
    const { audit } = (await apiFetch(context, stack, `/api/sessions/${sessionId}/approvals/audit`)) as {
      audit: AuditEntry[];
    };
    expect(audit.map((e) => [e.toolCallId, e.decision, e.source?.kind])).toEqual([
      ["call_one", "allow", "human"],
      ["call_two", "allow", "session_rule"],
      ["call_edit", "deny", "human"],
      ["call_write", "allow", "human"],
    ]);
    await context.close();
  });
});
