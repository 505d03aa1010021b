import { createHash } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { approvalDecision, toolCall, toolDispatched, toolEffect } from "@penguin/protocol";
import { readSession, TraceWriter } from "@penguin/trace";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createSessionInPage,
  execCall,
  HAS_CHROMIUM,
  launchChromium,
  loggedInPage,
  type Stack,
  screenshot,
  sendTask,
  startStack,
} from "./stack.js";

// The Recovery panel of the chat page in Chromium, against a real server: a session ran a real
// command, then its runtime was released (as after a restart) and its trace got what a crash
// during a write_file leaves (the call started, its effect journaled, no result). The panel shows
// the step with Penguin's check and the command; the user types what they checked and accepts;
// the step moves to the decisions, recorded in the trace by the user.

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

describe.skipIf(!HAS_CHROMIUM)("the Recovery panel in Chromium, against a real server", () => {
  let stack: Stack;
  let browser: Browser;

  beforeAll(async () => {
    stack = await startStack(
      [{ tool_calls: [execCall("call_echo", "say hello", "echo hello")] }, { text: "Said it." }],
      { idleReleaseMs: 100 },
    );
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  it("shows the uncertain step with Penguin's check, and records the user's decision", async () => {
    const { page } = await loggedInPage(browser, stack);
    const sessionId = await createSessionInPage(page, stack, { title: "After a crash", mode: "allow-all" });
    await sendTask(page, "Say hello.");
    await page.getByText("Said it.").waitFor({ timeout: 30_000 });
    await expect
      .poll(() => stack.server.sessions.runtime(sessionId) === undefined, { timeout: 20_000 })
      .toBe(true);

    const content = "half written\n";
    const trace = TraceWriter.open(stack.server.sessions.location, sessionId);
    trace.append(toolCall("write_file", { file_path: "notes.txt", content }, "call_crashed"));
    trace.append(approvalDecision("call_crashed", "allow"));
    trace.append(toolDispatched({ tool_call_id: "call_crashed", name: "write_file", read_only: false }));
    trace.append(
      toolEffect({
        tool_call_id: "call_crashed",
        files: [
          { path: join(stack.workspace, "notes.txt"), before_sha256: null, after_sha256: sha256(content) },
        ],
      }),
    );
    trace.close();
    await writeFile(join(stack.workspace, "notes.txt"), content);
    await page.reload();

    const panel = page.getByRole("region", { name: "Recovery" });
    const step = panel.locator('[data-testid="uncertain-step"][data-call="call_crashed"]');
    await step.waitFor({ timeout: 20_000 });
    const check = await step.getByTestId("penguin-evidence").textContent();
    expect(check).toContain("Penguin checked: applied:");
    expect(check).toContain("(suggests accept)");
    const process = panel.getByTestId("retained-process");
    expect(await process.getAttribute("data-state")).toBe("exited");
    expect(await process.textContent()).toContain("echo hello");
    expect(await process.textContent()).toContain("exit code 0");
    await screenshot(page, "recovery-panel-uncertain");

    const accept = step.getByRole("button", { name: "Accept" });
    expect(await accept.isDisabled()).toBe(true);
    await step.getByLabel("What you checked for call_crashed").fill("notes.txt holds the whole text");
    await accept.click();

    const resolved = panel.getByTestId("resolved-step");
    await resolved.waitFor({ timeout: 20_000 });
    expect(await resolved.textContent()).toContain("accept");
    expect(await resolved.textContent()).toContain("by user: notes.txt holds the whole text");
    await step.waitFor({ state: "detached" });
    expect(await panel.locator('[role="alert"], .error').count()).toBe(0);
    await screenshot(page, "recovery-panel-resolved");

    const decisions = readSession(stack.server.sessions.location, sessionId)
      .records.map((record) => record.payload as { type?: string; tool_call_id?: string; by?: string })
      .filter((payload) => payload.type === "activity_resolved");
    expect(decisions).toEqual([expect.objectContaining({ tool_call_id: "call_crashed", by: "user" })]);
  });
});
