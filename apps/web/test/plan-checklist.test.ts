import { describe, expect, it } from "vitest";
import { createSessionInPage, HAS_CHROMIUM, loggedInPage, sendTask, webStackPerFile } from "./stack.js";

// The model's checklist (update_plan) in the chat view of a real server, in Chromium: each update
// shows the whole list, its steps marked by status.

describe.skipIf(!HAS_CHROMIUM)("the model's checklist in Chromium", () => {
  const web = webStackPerFile();

  it("shows update_plan's steps with their statuses", async () => {
    web.stack.llm.setScript({
      turns: [
        {
          tool_calls: [
            {
              id: "plan_1",
              name: "update_plan",
              arguments: {
                steps: [
                  { step: "Read the code", status: "done" },
                  { step: "Fix the parser", status: "in_progress" },
                  { step: "Run the tests", status: "pending" },
                ],
              },
            },
          ],
        },
        { text: "Working on it." },
      ],
    });
    const { context, page } = await loggedInPage(web.browser, web.stack);
    await createSessionInPage(page, web.stack, { title: "Checklist", mode: "allow-all" });
    await sendTask(page, "Fix the parser");
    const checklist = page.locator('[data-testid="plan-checklist"]');
    await checklist.waitFor();
    await expect.poll(() => checklist.locator(".status-line").textContent()).toContain("Plan: 1/3 done");
    const statuses = await checklist
      .locator("li")
      .evaluateAll((items) => items.map((li) => [li.getAttribute("data-status"), li.textContent?.trim()]));
    expect(statuses).toEqual([
      ["done", "✔ Read the code"],
      ["in_progress", "▶ Fix the parser"],
      ["pending", "☐ Run the tests"],
    ]);
    await context.close();
  });
});
