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
  NEW_PASSWORD,
  type Stack,
  screenshot,
  sendTask,
  startStack,
  toolCard,
} from "./stack.js";

interface AuditEntry {
  toolCallId: string;
  decision: string;
  source?: { kind: string; name?: string };
}

describe.skipIf(!HAS_CHROMIUM)("the web UI in Chromium, against a real server and fake-llm", () => {
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

  it("logs in: a wrong password is refused, the first admin must choose a password, then the sessions show", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(stack.server.url);
    await page.getByLabel("Username").fill("admin");
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Log in" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("wrong username or password");

    await page.getByLabel("Password").fill(stack.password);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("heading", { name: "Choose a password" }).waitFor();
    await page.getByLabel("Current password").fill(stack.password);
    await page.getByLabel("New password", { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel("New password again").fill("something else entirely");
    await page.getByRole("button", { name: "Save password" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("the two new passwords differ");
    await page.getByLabel("New password again").fill(NEW_PASSWORD);
    await page.getByRole("button", { name: "Save password" }).click();
    await page.getByRole("heading", { name: "New session" }).waitFor();
    stack.password = NEW_PASSWORD;

    // The cookie session survives a reload; the initial password no longer works.
    await page.reload();
    await page.getByRole("heading", { name: "Sessions" }).waitFor();
    const me = (await apiFetch(context, stack, "/api/auth/me")) as {
      user: { must_change_password: boolean };
    };
    expect(me.user.must_change_password).toBe(false);
    await context.close();
  });

  it("always-ask: the call's description shows while it streams; one call is allowed and one denied from the page, and the audit says so, the decision beside the aborted outcome", async () => {
    stack.llm.setScript({
      turns: [
        {
          chunk_size: 3,
          chunk_delay_ms: 40,
          tool_calls: [
            execCall("call_allow", "Print a greeting for the test", "echo allowed-output"),
            execCall("call_deny", "Print something that is denied", "echo never-printed"),
          ],
        },
        { text: "One command ran and one was denied." },
      ],
    });
    const { context, page } = await loggedInPage(browser, stack);
    const sessionId = await createSessionInPage(page, stack, { title: "Approvals", mode: "always-ask" });
    await sendTask(page, "Run two commands");

    // The description appears while the arguments are still streaming, before the call is complete.
    await page.waitForFunction(
      () => {
        const card = document.querySelector('[data-testid="tool-call"][data-tool-call-id="call_allow"]');
        const description = card?.querySelector('[data-testid="call-description"]')?.textContent ?? "";
        return card?.getAttribute("data-status") === "writing" && description.startsWith("Print");
      },
      undefined,
      { polling: "raf", timeout: 30_000 },
    );

    await approvalCard(page, "call_allow").waitFor();
    await screenshot(page, "web-chat-approval");
    await approvalCard(page, "call_allow").getByRole("button", { name: "Allow once" }).click();
    await approvalCard(page, "call_deny").getByRole("button", { name: "Deny" }).click();
    await page.getByTestId("status-line").filter({ hasText: "Task completed" }).waitFor();

    await expect.poll(() => toolCard(page, "call_allow").getAttribute("data-status")).toBe("done");
    expect(await toolCard(page, "call_allow").getByTestId("call-description").textContent()).toBe(
      "Print a greeting for the test",
    );
    await toolCard(page, "call_allow")
      .getByText(/^Output/)
      .click();
    expect(await toolCard(page, "call_allow").getByTestId("call-output").textContent()).toContain(
      "allowed-output",
    );
    expect(await toolCard(page, "call_deny").getAttribute("data-status")).toBe("denied");
    expect(await page.getByTestId("approval-card").count()).toBe(0);
    expect(await page.getByText("One command ran and one was denied.").count()).toBe(1);

    const { audit } = (await apiFetch(context, stack, `/api/sessions/${sessionId}/approvals/audit`)) as {
      audit: AuditEntry[];
    };
    expect(audit.map((e) => [e.toolCallId, e.decision, e.source?.kind])).toEqual([
      ["call_allow", "allow", "human"],
      ["call_deny", "deny", "human"],
    ]);

    await screenshot(page, "web-chat");

    // The trace view lists the same decisions.
    await page.getByRole("link", { name: "Trace" }).click();
    const rows = page.getByTestId("audit-table").locator("tbody tr");
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.nth(0).textContent()).toMatch(/call_allow.*allow.*human/);
    expect(await rows.nth(1).textContent()).toMatch(/call_deny.*deny.*human/);
    // The denied call's outcome is `aborted`, as the contract says, with who refused it beside it.
    expect(await rows.nth(1).locator("td").last().textContent()).toBe("aborted (denied by human)");
    expect(await rows.nth(0).locator("td").last().textContent()).toBe("completed");
    expect(await page.getByTestId("trace-records").locator("li").count()).toBeGreaterThan(5);
    await screenshot(page, "web-trace");
    await context.close();
  });

  it("switching the mode to allow-all mid-task lets the next call run without a prompt", async () => {
    stack.llm.setScript({
      turns: [
        { tool_calls: [execCall("call_first", "Print the first word", "echo first-word")] },
        { tool_calls: [execCall("call_second", "Print the second word", "echo second-word")] },
        { text: "Both words are printed." },
      ],
    });
    const { context, page } = await loggedInPage(browser, stack);
    const sessionId = await createSessionInPage(page, stack, { title: "Mode switch", mode: "always-ask" });
    await sendTask(page, "Print two words");

    await approvalCard(page, "call_first").waitFor();
    // A click asks the server; the switch shows the new mode once the server has stored it.
    await page.getByRole("radio", { name: "allow-all" }).click();
    await expect.poll(() => page.getByRole("radio", { name: "allow-all" }).isChecked()).toBe(true);
    // The call that already waits still waits for a person, and says so; the mode applies from the next decision.
    await approvalCard(page, "call_first")
      .getByRole("note")
      .filter({ hasText: "still needs your answer" })
      .waitFor();
    await approvalCard(page, "call_first").getByRole("button", { name: "Allow this one too" }).click();
    await page.getByTestId("status-line").filter({ hasText: "Task completed" }).waitFor();

    expect(await toolCard(page, "call_second").getAttribute("data-status")).toBe("done");
    expect(await toolCard(page, "call_second").getByTestId("call-decision").textContent()).toContain(
      "mode: allow-all",
    );
    const { audit } = (await apiFetch(context, stack, `/api/sessions/${sessionId}/approvals/audit`)) as {
      audit: AuditEntry[];
    };
    expect(audit.map((e) => [e.toolCallId, e.decision, e.source?.kind, e.source?.name])).toEqual([
      ["call_first", "allow", "human", undefined],
      ["call_second", "allow", "mode", "allow-all"],
    ]);
    const { session } = (await apiFetch(context, stack, `/api/sessions/${sessionId}`)) as {
      session: { approval_mode: string };
    };
    expect(session.approval_mode).toBe("allow-all");
    await context.close();
  });

  it("steers a running task and aborts it from the page: the command ends and the task ends aborted", async () => {
    stack.llm.setScript({
      turns: [
        { tool_calls: [execCall("call_wait", "Wait for a long time", "sleep 30")] },
        { text: "unused" },
      ],
    });
    const { context, page } = await loggedInPage(browser, stack);
    const sessionId = await createSessionInPage(page, stack, { title: "Abort", mode: "allow-all" });
    await sendTask(page, "Wait");
    await expect.poll(() => toolCard(page, "call_wait").getAttribute("data-status")).toBe("running");

    await page.getByPlaceholder(/Steer the running task/).fill("Please hurry");
    await page.getByRole("button", { name: "Steer" }).click();
    await expect.poll(() => page.getByTestId("task-state").textContent()).toContain("1 queued");

    await page.getByRole("button", { name: "Abort" }).click();
    await page.getByTestId("status-line").filter({ hasText: "Task aborted" }).waitFor();
    await expect.poll(() => toolCard(page, "call_wait").getAttribute("data-status")).toBe("aborted");
    expect(await page.getByTestId("task-state").textContent()).toBe("idle");
    const { processes } = (await apiFetch(context, stack, `/api/sessions/${sessionId}/processes`)) as {
      processes: { status: string }[];
    };
    expect(processes.filter((p) => p.status === "running")).toEqual([]);
    await context.close();
  });

  it("a reload mid-stream loses nothing: the final page shows every message exactly once", async () => {
    const opening = "I will look at the workspace first, then report what I find there.";
    const closing =
      "The command printed reload-output. Everything in the workspace looks as expected, and nothing else needs doing.";
    stack.llm.setScript({
      turns: [
        {
          chunk_size: 3,
          chunk_delay_ms: 30,
          thinking: "The user wants a check of the workspace.",
          text: opening,
          tool_calls: [execCall("call_reload", "Print a marker", "echo reload-output")],
        },
        { chunk_size: 3, chunk_delay_ms: 30, text: closing },
      ],
    });
    const { context, page } = await loggedInPage(browser, stack);
    const sessionId = await createSessionInPage(page, stack, { title: "Reload", mode: "allow-all" });
    await sendTask(page, "Check the workspace");

    const streamingText = page.locator('[data-testid="message-text"][data-streaming="true"]');
    await streamingText.first().waitFor();
    await page.reload();
    await page.getByRole("heading", { name: "Reload" }).waitFor();
    // Once more while the second answer streams.
    await streamingText.filter({ hasText: "The command" }).first().waitFor();
    await page.reload();
    await page.getByTestId("status-line").filter({ hasText: "Task completed" }).waitFor();

    const texts = await page.getByTestId("message-text").allTextContents();
    expect(texts).toEqual(["Check the workspace", opening, closing]);
    expect(await page.getByTestId("message-thinking").count()).toBe(1);
    // Collapsed, with its size.
    expect(await page.getByTestId("message-thinking").getAttribute("open")).toBeNull();
    expect(await page.getByTestId("thinking-tokens").textContent()).toMatch(/^· about \d+ tokens$/);
    expect(await page.getByTestId("tool-call").count()).toBe(1);
    expect(await toolCard(page, "call_reload").getAttribute("data-status")).toBe("done");
    expect(await page.getByTestId("status-line").count()).toBe(1);

    // The page agrees with the trace.
    const { records } = (await apiFetch(context, stack, `/api/sessions/${sessionId}/trace`)) as {
      records: { type: string; payload: { type: string; text?: string } }[];
    };
    const traced = records
      .filter((r) => r.type === "model_msg" && r.payload.type === "text")
      .map((r) => r.payload.text);
    expect(texts).toEqual(traced);
    await context.close();
  });
});
