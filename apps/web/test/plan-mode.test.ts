import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  apiFetch,
  createSessionInPage,
  HAS_CHROMIUM,
  loggedInPage,
  screenshot,
  sendTask,
  webStackPerFile,
} from "./stack.js";

// Plan mode in the chat view of a real server, in Chromium: switch the session to plan, watch the
// checklist panel follow update_plan, see the write refused and the plan offered, approve it in
// another mode, and watch it being carried out.

const PLAN = "1. Write notes.txt with hello.\n2. Check it.";

const checklist = (steps: [string, "pending" | "in_progress" | "done"][], id: string) => ({
  tool_calls: [
    {
      id,
      name: "update_plan",
      arguments: { steps: steps.map(([step, status]) => ({ step, status })) },
    },
  ],
});

describe.skipIf(!HAS_CHROMIUM)("plan mode in Chromium", () => {
  const web = webStackPerFile();

  it("plans in plan mode, shows the checklist and the plan, and approving carries it out", async () => {
    const notes = join(web.stack.workspace, "notes.txt");
    web.stack.llm.setScript({
      turns: [
        checklist(
          [
            ["Look around", "in_progress"],
            ["Write notes.txt", "pending"],
          ],
          "plan_1",
        ),
        {
          tool_calls: [
            { id: "write_1", name: "write_file", arguments: { file_path: notes, content: "x\n" } },
          ],
        },
        { text: PLAN },
      ],
    });
    const { context, page } = await loggedInPage(web.browser, web.stack);
    const sessionId = await createSessionInPage(page, web.stack, { title: "Planning", mode: "always-ask" });

    // The mode switch offers plan; choosing it is stored on the server. (A click, not `check`: the
    // radio shows checked only once the server has answered, which `check` does not wait for.)
    await page.getByRole("radio", { name: "plan" }).click();
    await expect.poll(() => page.getByRole("radio", { name: "plan" }).isChecked()).toBe(true);
    await expect
      .poll(async () => {
        const body = (await apiFetch(context, web.stack, `/api/sessions/${sessionId}`)) as {
          session: { approval_mode: string };
        };
        return body.session.approval_mode;
      })
      .toBe("plan");

    await sendTask(page, "Add a notes file");
    const panel = page.locator('[data-testid="plan-panel"]');
    await panel.waitFor();
    await expect.poll(() => panel.locator(".status-line").textContent()).toContain("Plan: 0/2 done");

    const ready = page.locator('[data-testid="plan-ready"]');
    await ready.waitFor({ timeout: 60_000 });
    await expect.poll(() => ready.textContent()).toContain("Write notes.txt with hello.");
    expect(await ready.textContent()).toContain("type what to adjust below");
    // The write was refused in plan mode: nothing on disk, and nothing waited for a person.
    expect(existsSync(notes)).toBe(false);
    expect(await page.locator('[data-testid="approval-card"]').count()).toBe(0);
    await screenshot(page, "plan-ready");

    // Approve in allow-all: the session leaves plan mode and the plan runs.
    web.stack.llm.setScript({
      turns: [
        checklist(
          [
            ["Look around", "done"],
            ["Write notes.txt", "in_progress"],
          ],
          "plan_2",
        ),
        {
          tool_calls: [
            { id: "write_2", name: "write_file", arguments: { file_path: notes, content: "hello\n" } },
          ],
        },
        checklist(
          [
            ["Look around", "done"],
            ["Write notes.txt", "done"],
          ],
          "plan_3",
        ),
        { text: "Done." },
      ],
    });
    await page.getByLabel("Mode to run the plan in").selectOption("allow-all");
    await page.getByRole("button", { name: "Approve plan" }).click();

    await expect
      .poll(() => panel.locator(".status-line").textContent(), { timeout: 60_000 })
      .toContain("Plan: 2/2 done");
    await expect.poll(() => existsSync(notes) && readFileSync(notes, "utf8")).toBe("hello\n");
    await expect
      .poll(() => page.getByRole("radio", { name: "allow-all" }).isChecked(), { timeout: 30_000 })
      .toBe(true);
    await expect.poll(() => page.locator('[data-testid="task-state"]').textContent()).toBe("idle");
    expect(await ready.count()).toBe(0);
    await context.close();
  });
});
