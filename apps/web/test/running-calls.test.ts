import { describe, expect, it } from "vitest";
import {
  createSessionInPage,
  execCall,
  HAS_CHROMIUM,
  loggedInPage,
  sendTask,
  toolCard,
  webStackPerFile,
} from "./stack.js";

// A running call shows how long it has run and its newest output lines; a long output opens on its
// first page, with a button for each next one.

describe.skipIf(!HAS_CHROMIUM)("running calls and long output in Chromium", () => {
  const web = webStackPerFile();

  it("a running command shows its elapsed time and newest lines; a 1,000-line output pages by 400", async () => {
    web.stack.llm.setScript({
      turns: [
        {
          tool_calls: [
            execCall("call_slow", "Count slowly", "for i in 1 2 3 4; do echo line-$i; sleep 1; done"),
          ],
        },
        { tool_calls: [execCall("call_long", "Print a thousand lines", "seq 1 1000")] },
        { text: "Counted." },
      ],
    });
    const { context, page } = await loggedInPage(web.browser, web.stack);
    await createSessionInPage(page, web.stack, { title: "Running calls", mode: "allow-all" });
    await sendTask(page, "Count");

    const slow = toolCard(page, "call_slow");
    await slow.getByTestId("output-tail").filter({ hasText: "line-2" }).waitFor();
    expect(await slow.getAttribute("data-status")).toBe("running");
    expect(await slow.getByTestId("call-elapsed").textContent()).toMatch(/^\d+s$/);
    // The time counts up while the call runs.
    const first = Number((await slow.getByTestId("call-elapsed").textContent())?.replace("s", ""));
    await expect
      .poll(async () => Number((await slow.getByTestId("call-elapsed").textContent())?.replace("s", "")), {
        timeout: 5_000,
      })
      .toBeGreaterThan(first);

    await page.getByTestId("status-line").filter({ hasText: "Task completed" }).waitFor();
    // Done: no timer, no tail; the output is collapsed as before.
    expect(await slow.getByTestId("call-elapsed").count()).toBe(0);
    expect(await slow.getByTestId("output-tail").count()).toBe(0);

    const long = toolCard(page, "call_long");
    await long.getByText(/^Output/).click();
    const shown = () => long.getByTestId("call-output").locator("pre").textContent();
    expect((await shown())?.split("\n")).toHaveLength(400);
    await long.getByRole("button", { name: /^Show 400 more lines/ }).click();
    expect((await shown())?.split("\n")).toHaveLength(800);
    await long.getByRole("button", { name: /^Show \d+ more lines/ }).click();
    expect(await shown()).toContain("\n1000");
    expect(await long.getByRole("button", { name: /more line/ }).count()).toBe(0);
    await context.close();
  });
});
